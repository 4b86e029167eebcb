// Run statistics: counts, sustained FPS (warm-up excluded), per-stage busy share and the
// bottleneck, per-frame latency percentiles. Memory is fixed whatever the stream length.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/histogram.hpp"
#include "media/frame.hpp"

namespace vf {

// Busy time of one stage, excluding time spent waiting on its queues.
struct StageClock {
    explicit StageClock(std::string n = "") : name(std::move(n)) {}
    std::string name;
    std::atomic<int64_t> busy_ns{0};
    std::atomic<int64_t> items{0};
    DurationHistogram per_item;  // written by the stage's own thread, read after it ends
};

struct StageSummary {
    std::string name;
    double busy_s = 0;
    double busy_share = 0;  // of the wall time
    double ms_per_frame = 0;  // mean busy time per frame
    double p99_ms = 0;        // per item (0 when not measured per item)
    bool gpu = false;         // measured with CUDA events on the GPU
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
    bool live = false;          // a live input (or one paced with --realtime)
    int64_t reconnects = 0;     // times a live input came back
    double input_gap_s = 0;     // total time a live input was down
    int64_t damaged_at_cuts = 0;  // frames and packets damaged where a live input was cut (not damage)
    std::string input, output, filters;
    int filter_threads = 0;
    std::string damage;  // empty when the input decoded cleanly
    std::string device = "cpu";  // where filters ran
    std::string hw_decode = "none";
    std::string nvdec_decoder;  // with NVDEC: "ffmpeg" or "vfilter" (--nvdec-decoder)
    int gpu_streams = 0;
    double gpu_ms_per_frame = 0;       // upload + kernels + download, from CUDA events
    std::vector<std::string> gpu_kernels;  // the dispatch table's row that ran, per filter and channel
    double gpu_frames_per_launch = 0;  // mean frames of the launches that filtered this stream's (serve's batch window)
    double host_copies_per_frame = 0;  // host-side copies of frame data (conversions, staged uploads)
};

nlohmann::json to_json(const RunStats& s);
std::string format_summary(const RunStats& s);

}  // namespace vf
