// `vfilter bench --pipeline`: the GPU stage alone, with frames already in page-locked memory.
// For each case it measures upload, kernels and download per frame one at a time on one stream
// (no overlap), then the sustained rate with S streams in flight, and reports that rate against
// the bound 1 / max(upload, kernels, download): near 1 means the copies and kernels overlap.
// With --batch, the kernels alone with 1, 4, 16 ... frames a launch (frames already on the GPU).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/gpu_runtime.hpp"

namespace vf {

struct GpuPipelineBenchOptions {
    std::vector<std::string> sizes = {"1920x1080", "3840x2160"};
    std::vector<std::string> filters;  // empty: identity, sobel, gaussian=sigma=3.2, a dense 27x27
    int frames = 300;                  // per measurement
    int streams = 6;
    // Non-empty: instead, kernel time per frame with this many frames a launch (frames of one
    // geometry and filter filtered by one prepared operation's launch_batch); default filters sobel and a 5x5.
    std::vector<int> batches;
};

struct GpuPipelineBenchRow {
    std::string size, filter;
    double upload_ms = 0, kernels_ms = 0, download_ms = 0;  // alone, mean per frame
    double serial_fps = 0;     // 1 / (upload + kernels + download)
    double bound_fps = 0;      // 1 / max(upload, kernels, download)
    double overlapped_fps = 0; // measured with `streams` in flight
    double ratio = 0;          // overlapped / bound
};

// On the current GPU of `runtime`.
std::vector<GpuPipelineBenchRow> run_gpu_pipeline_bench(const GpuPipelineBenchOptions& o, GpuRuntime& runtime);
nlohmann::json to_json(const GpuPipelineBenchRow& r);

struct GpuBatchBenchRow {
    std::string size, filter;
    int batch = 1;              // frames a launch
    double kernels_ms = 0;      // per frame: every launch of the chain on a yuv420p frame, timed by events
    double ratio_to_one = 0;    // kernels_ms / kernels_ms with one frame a launch
    std::string rows;           // the dispatch table's rows that ran (luma, chroma)
};
std::vector<GpuBatchBenchRow> run_gpu_batch_bench(const GpuPipelineBenchOptions& o, GpuRuntime& runtime);
nlohmann::json to_json(const GpuBatchBenchRow& r);

}  // namespace vf
