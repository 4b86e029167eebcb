// `vfilter bench --pipeline`: the GPU stage alone, with frames already in page-locked memory.
// For each case it measures upload, kernels and download per frame one at a time on one stream
// (no overlap), then the sustained rate with S streams in flight, and reports that rate against
// the bound 1 / max(upload, kernels, download): near 1 means the copies and kernels overlap.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vf {

struct GpuPipelineBenchOptions {
    std::vector<std::string> sizes = {"1920x1080", "3840x2160"};
    std::vector<std::string> filters;  // empty: identity, sobel, gaussian=sigma=3.2, a dense 27x27
    int frames = 300;                  // per measurement
    int streams = 6;
};

struct GpuPipelineBenchRow {
    std::string size, filter;
    double upload_ms = 0, kernels_ms = 0, download_ms = 0;  // alone, mean per frame
    double serial_fps = 0;     // 1 / (upload + kernels + download)
    double bound_fps = 0;      // 1 / max(upload, kernels, download)
    double overlapped_fps = 0; // measured with `streams` in flight
    double ratio = 0;          // overlapped / bound
};

std::vector<GpuPipelineBenchRow> run_gpu_pipeline_bench(const GpuPipelineBenchOptions& o);
nlohmann::json to_json(const GpuPipelineBenchRow& r);

}  // namespace vf
