// Per-frame latency from the moment a frame's data entered vfilter to the moment it was written,
// since the start (the steady state) and over the last few seconds (what it is now).
#pragma once

#include <mutex>

#include "common/histogram.hpp"
#include "media/frame.hpp"

namespace vf {

// Written by the encode thread, read by metrics scrapes and the API, hence the lock.
//   - Since the start: the first `warmup` frames (the same ones the sustained rate leaves out:
//     CUDA and encoder start-up) are kept apart, so the percentiles describe the steady state; a
//     run shorter than that reports them.
//   - Recent: the last complete window of kRecentWindow, every frame counted, or the window being
//     filled until one is complete. After a long run the figures since the start hardly move, and
//     a stall of a minute at start-up (serve creating hundreds of NVDEC decoders) stays in their
//     p99 for good; the recent window shows latency as it is now. Empty (0) when no frame was
//     written in the last window.
class LatencyLog {
public:
    static constexpr Clock::duration kRecentWindow = std::chrono::seconds(10);

    void set_warmup(int64_t frames);
    void add(Clock::time_point read_at) { add(read_at, Clock::now()); }
    void add(Clock::time_point read_at, Clock::time_point written_at);
    double percentile(double p) const;
    double recent_percentile(double p) const { return recent_percentile(p, Clock::now()); }
    double recent_percentile(double p, Clock::time_point now) const;

private:
    void rotate(Clock::time_point now) const;  // under the lock

    mutable std::mutex mutex_;
    int64_t warmup_ = 0, seen_ = 0;
    DurationHistogram histogram_, warming_;
    mutable DurationHistogram recent_, filling_;  // rotate() moves filling_ to recent_
    mutable Clock::time_point filling_since_{};
    mutable bool have_recent_ = false;  // a window has completed
};

}  // namespace vf
