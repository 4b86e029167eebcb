// Shows how far a run is: a self-rewriting line on a terminal (percent, fps, ETA when the
// length is known), a plain log line every 10 s otherwise.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "pipeline/pipeline.hpp"

namespace vf {

class ProgressReporter {
public:
    ProgressReporter(const PipelineProgress& progress, const VideoInfo& video, bool enabled);
    ~ProgressReporter();  // stops and clears the terminal line

private:
    void loop();
    void report(bool final_line);

    const PipelineProgress& progress_;
    VideoInfo video_;
    bool tty_;
    Clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stop_ = false;
    bool printed_ = false;
    std::thread thread_;
};

}  // namespace vf
