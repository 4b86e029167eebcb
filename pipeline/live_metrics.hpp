// The Prometheus metrics of one running pipeline: frames in/out/dropped, FPS over the last
// scrape interval, per-stage busy share and mean time per frame, latency percentiles,
// reconnects and whether the source is up. `vfilter serve` collects every stream's into one
// MetricSet, each sample labelled with its stream.
#pragma once

#include <mutex>
#include <string>

#include "common/metric_set.hpp"
#include "decode/source.hpp"
#include "encode/sink.hpp"
#include "pipeline/pipeline.hpp"

namespace vf {

class LiveMetrics {
public:
    LiveMetrics(const Pipeline& pipeline, const Source& source, const Sink& sink)
        : pipeline_(pipeline), source_(source), sink_(sink) {}
    // Adds this pipeline's samples, each with `labels` (e.g. stream="cam1"; "" for none).
    void collect(MetricSet& set, const std::string& labels = "");
    // The frame counters and the source's state alone: what a stream reports while it is not
    // running (serve: opening, or ended), under the same families as collect().
    static void collect_counters(MetricSet& set, const std::string& labels, int64_t frames_in, int64_t frames_out,
                                 int64_t frames_dropped, bool source_up);
    // Frames written per second since the previous call at least half a second ago.
    double fps();
    std::string render() {  // the single-stream endpoint's whole text
        MetricSet set;
        collect(set);
        return set.text();
    }

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
