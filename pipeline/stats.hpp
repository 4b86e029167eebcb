// Run statistics: counts, sustained FPS (warm-up excluded), per-stage busy share and the
// bottleneck, per-frame latency percentiles. Memory is fixed whatever the stream length.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/frame.hpp"

namespace vf {

// Busy time of one stage, excluding time spent waiting on its queues.
struct StageClock {
    std::string name;
    std::atomic<int64_t> busy_ns{0};
    std::atomic<int64_t> items{0};
};

// Latency histogram with 0.5 ms buckets up to 60 s.
class LatencyHistogram {
public:
    void add(double ms);
    double percentile(double p) const;
    int64_t count() const { return count_; }

private:
    static constexpr int kBuckets = 120000;
    std::vector<uint32_t> buckets_ = std::vector<uint32_t>(kBuckets, 0);
    int64_t count_ = 0;
};

struct StageSummary {
    std::string name;
    double busy_s = 0;
    double busy_share = 0;  // of the wall time
    double ms_per_frame = 0;
};

struct RunStats {
    int64_t frames_in = 0, frames_out = 0, frames_dropped = 0, packets_passed = 0;
    double wall_s = 0;
    double sustained_fps = 0;   // after warm-up
    double average_fps = 0;     // frames_out / wall
    int64_t warmup_frames = 0;
    std::vector<StageSummary> stages;
    std::string bottleneck;
    double latency_p50_ms = 0, latency_p99_ms = 0;
    std::string input, output, filters;
    int filter_threads = 0;
    std::string damage;  // empty when the input decoded cleanly
};

nlohmann::json to_json(const RunStats& s);
std::string format_summary(const RunStats& s);

}  // namespace vf
