// `vfilter bench`: times every filter of the standard set on the CPU backend, one 8-bit plane
// at a time (fresh random input, warm-up, median of --repeat runs), and prints a table.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "kernels/cpu_backend.hpp"

#include <unistd.h>

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_pipeline_bench.hpp"
#endif

namespace vf {
namespace {

#ifdef VF_HAVE_CUDA
// The GPU kernel benchmark is a program of its own, built beside vfilter (bench/, with NPP where the
// toolkit has it), so that neither the benchmark nor NPP is linked into vfilter: this runs it with
// the options given here. Returns only on error.
[[noreturn]] void exec_gpu_bench(const BenchOptions& o) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    const std::string program = dir + "vfilter_gpu_bench";
    if (access(program.c_str(), X_OK) != 0)
        fail(ErrorCategory::Device, "bench --device cuda runs the GPU benchmark, vfilter_gpu_bench, which was not found beside "
                                    "vfilter (" + program + "); it is built with CUDA (scripts/gpu_check.sh builds it)");
    std::vector<std::string> args = {program};
    if (o.sizes.size() != 1 || o.sizes[0] != "1920x1080")
        for (const std::string& s : o.sizes) args.insert(args.end(), {"--size", s});
    args.insert(args.end(), {"--iterations", std::to_string(std::max(o.repeat, 5))});
    if (!o.json.empty()) args.insert(args.end(), {"--json", o.json});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    execv(program.c_str(), argv.data());
    fail(ErrorCategory::Device, "cannot run " + program + ": " + std::strerror(errno));
}
#endif

}  // namespace

const std::vector<std::string>& standard_bench_filters() {
    static const std::vector<std::string> f = {
        "sobel", "gaussian=sigma=3.2", "box=radius=31", "sharpen", "laplacian",
        "convolution=m=1 2 3 4 5 6 7 8 9",
        "convolution=m=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"};
    return f;
}

int run_bench(const BenchOptions& o) {
    if (!o.batches.empty() && !o.pipeline) fail(ErrorCategory::Usage, "bench --batch times the GPU stage: give --pipeline too");
    if (o.pipeline) {
#ifdef VF_HAVE_CUDA
        GpuPipelineBenchOptions g;
        if (o.sizes.size() != 1 || o.sizes[0] != "1920x1080") g.sizes = o.sizes;
        g.filters = o.filters;
        g.frames = o.frames;
        g.streams = o.gpu_streams;
        g.batches = o.batches;
        std::string why;
        if (!cuda_device_available(&why)) fail(ErrorCategory::Device, "bench --pipeline: " + why);
        nlohmann::json results = nlohmann::json::array();
        GpuRuntime runtime;
        if (!g.batches.empty())
            for (const GpuBatchBenchRow& r : run_gpu_batch_bench(g, runtime)) results.push_back(to_json(r));
        else
            for (const GpuPipelineBenchRow& r : run_gpu_pipeline_bench(g, runtime)) results.push_back(to_json(r));
        if (!o.json.empty()) {
            std::ofstream f(o.json);
            f << results.dump(2) << "\n";
            if (!f) fail(ErrorCategory::Output, "cannot write '" + o.json + "'");
        }
        return 0;
#else
        fail(ErrorCategory::Device, "bench --pipeline: this vfilter was built without CUDA");
#endif
    }
    if (o.device == DeviceChoice::Cuda) {
#ifdef VF_HAVE_CUDA
        exec_gpu_bench(o);
#else
        fail(ErrorCategory::Device, "bench --device cuda: this vfilter was built without CUDA");
#endif
    }
    CpuBackend backend(o.threads);
    nlohmann::json results = nlohmann::json::array();
    std::printf("%-12s %-60s %10s %10s %12s\n", "plane", "filter", "ms median", "ms min", "Mpixel/s");
    const std::vector<std::string>& filters = o.filters.empty() ? standard_bench_filters() : o.filters;
    for (const std::string& size : o.sizes) {
        int w = 0, h = 0;
        if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0 || w > 16384 || h > 16384)
            fail(ErrorCategory::Usage, "bench --size '" + size + "': expected WxH, e.g. 1920x1080");
        const std::ptrdiff_t pitch = (w + 63) / 64 * 64;
        std::vector<uint8_t> a(pitch * h), out(pitch * h);
        std::mt19937 rng(7);
        for (auto& v : a) v = static_cast<uint8_t>(rng());
        PlaneView src{a.data(), pitch, w, h}, dst{out.data(), pitch, w, h};
        for (const std::string& spec : filters) {
            const PlaneOp op = build_chain(spec)[0].ops[0];
            backend.apply(op, src, dst);  // warm-up: scratch allocation, caches
            std::vector<double> ms;
            for (int r = 0; r < o.repeat; ++r) {
                const auto t = std::chrono::steady_clock::now();
                backend.apply(op, src, dst);
                ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
            }
            std::sort(ms.begin(), ms.end());
            const double med = ms[ms.size() / 2];
            std::printf("%-12s %-60.60s %10.3f %10.3f %12.1f\n", size.c_str(), spec.c_str(), med, ms[0], w * h / med / 1e3);
            results.push_back({{"plane", size}, {"filter", spec}, {"ms_median", med}, {"ms_min", ms[0]},
                               {"threads", backend.threads()}, {"backend", "cpu"}});
        }
    }
    if (!o.json.empty()) {
        std::ofstream f(o.json);
        f << results.dump(2) << "\n";
        if (!f) fail(ErrorCategory::Output, "cannot write '" + o.json + "'");
    }
    return 0;
}

}  // namespace vf
