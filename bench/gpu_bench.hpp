// The GPU benchmark behind `vfilter bench --device cuda` and `vfilter_gpu_bench`: every vfilter
// variant, NPP where present, and the floor, per plane size and filter. See docs/benchmarks.md.
#pragma once

#include <string>
#include <vector>

namespace vf {

struct GpuBenchOptions {
    std::vector<std::string> sizes = {"1920x1080", "3840x2160"};
    int iterations = 50;
    std::string json;
    bool quick = false;  // fewer cases (for smoke tests)
    std::vector<std::string> only;  // run only the cases whose name contains one of these (e.g. "sobel")
};

int run_gpu_bench(const GpuBenchOptions& options);

}  // namespace vf
