// The Prometheus text for /metrics (--metrics-port): frames in/out/dropped, FPS over the last
// scrape interval, per-stage busy share and mean time per frame, latency percentiles,
// reconnects and whether the source is up.
#pragma once

#include <mutex>
#include <string>

#include "decode/source.hpp"
#include "encode/sink.hpp"
#include "pipeline/pipeline.hpp"

namespace vf {

class LiveMetrics {
public:
    LiveMetrics(const Pipeline& pipeline, const Source& source, const Sink& sink)
        : pipeline_(pipeline), source_(source), sink_(sink) {}
    std::string render();  // called from the metrics server's thread

private:
    const Pipeline& pipeline_;
    const Source& source_;
    const Sink& sink_;
    std::mutex mutex_;  // the FPS window below
    Clock::time_point last_at_{};
    int64_t last_frames_ = 0;
    double fps_ = 0;
};

}  // namespace vf
