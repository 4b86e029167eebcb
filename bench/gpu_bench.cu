// GPU benchmark: for each plane size and filter, every vfilter variant and (where the toolkit
// has it) NPP, timed with CUDA events around single launches (warm-up, median of N), inputs
// and outputs rotated over more memory than the L2 holds so caches don't flatter. The floor
// beside each row is max(bytes / bandwidth, 2 * multiply-adds / FP32 rate), both ceilings
// measured in the same run.
// Timing and ceilings: gpu_timing.hpp; planes and cases: bench_planes.hpp; NPP: npp_bench.hpp.
#include "bench/gpu_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_planes.hpp"
#include "bench/conv1d/conv1d.hpp"
#include "bench/gpu_timing.hpp"
#include "bench/npp_bench.hpp"
#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/dispatch_table.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda_backend.hpp"

namespace vf {
namespace {

using namespace bench;
using cuda::DeviceBuffer;
using cuda::Stream;

struct Row {
    std::string size, filter, variant;
    double ms, floor_ms;
};

// What every part of the run shares: the device, its stream and workspace, the ceilings, the rows
// kept for the JSON.
struct BenchRun {
    const GpuBenchOptions& o;
    cudaDeviceProp prop{};
    Stream stream;
    cuda::Workspace workspace{stream.get()};
    std::shared_ptr<cuda::DeviceContext> ctx = cuda::DeviceContext::create(0);
    Ceilings ceil;
    std::mt19937 rng{2026};
    std::vector<Row> rows;

    explicit BenchRun(const GpuBenchOptions& options) : o(options) {
        VF_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        ceil = measure_ceilings(stream.get());
    }
    // Keeps a row for the JSON and prints it.
    void add_row(const std::string& size, const std::string& filter, const std::string& variant, double ms, double floor_ms) {
        rows.push_back({size, filter, variant, ms, floor_ms});
        std::printf("%-10s %-28s %-10s %10.4f %10.4f %9.1f\n", size.c_str(), filter.c_str(), variant.c_str(), ms, floor_ms,
                    ms / floor_ms);
    }
};

// The cases the options ask for: sobel, a Gaussian, boxes, dense matrices (--quick: four; --only: by name).
std::vector<Case> chosen_cases(const GpuBenchOptions& o, std::mt19937& rng) {
    std::vector<Case> cases = {{"sobel", "sobel", 3, Case::Sobel},
                               {"gaussian s=3.2 (27x27)", "gaussian=sigma=3.2", 27, Case::Gaussian},
                               {"box 63x63", "box=radius=31", 63, Case::Box},
                               // FFmpeg's avgblur (--compat ffmpeg): the box above, its means truncated (the same border).
                               {"avgblur 63x63 (truncated)", "avgblur=sizeX=31:round=down", 63, Case::Box}};
    for (int k : {3, 5, 7, 13, 27, 63}) cases.push_back({"dense " + std::to_string(k) + "x" + std::to_string(k), dense_spec(k, rng), k, Case::Dense});
    if (o.quick) cases = {cases[0], cases[1], cases[4], cases[7]};  // sobel, gaussian, dense 3x3, dense 13x13
    if (!o.only.empty()) {
        std::vector<Case> picked;
        for (const Case& c : cases)
            if (std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return c.name.find(s) != std::string::npos; }))
                picked.push_back(c);
        cases = picked;
    }
    return cases;
}

// Every variant of `op` that the dispatch table could run for case `c` on these planes.
std::vector<KernelChoice> variants_for(const Case& c, const PlaneOp& op, const PlaneSet& ps) {
    std::vector<KernelChoice> variants = {KernelFamily::Naive, KernelFamily::Constant, KernelFamily::Direct};
    if (op.kind == OpKind::Convolve && op.conv.separable()) variants.push_back(KernelFamily::Separable);
    if (c.kind == Case::Dense && c.k >= 13) variants.push_back(KernelFamily::Fft);
    const PlaneView in0 = ps.view(ps.in[0]), out0 = ps.view(ps.out[0]);
    const bool imma = c.kind == Case::Dense && cuda::imma_eligible(op.conv, cuda::Launch{in0, out0});
    if (c.kind == Case::Dense && (imma || (c.k >= 7 && cuda::tensor_eligible(op.conv, in0))))
        variants.push_back(KernelFamily::Tensor);
    if (op.kind == OpKind::Gradient) variants = {KernelFamily::Direct};
    if (op.kind == OpKind::Convolve && op.conv.divisor > 0) variants = {KernelFamily::Separable};  // only the box rows
    variants.push_back(KernelChoice{});
    return variants;
}

// The cases on one plane size: a plane copy (the floor one launch reaching DRAM gets), then every
// variant of each case, auto timed three ways, and NPP where present.
void bench_size(BenchRun& run, const std::string& size, const std::vector<Case>& list) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2) throw Error(ErrorCategory::Usage, "bad size " + size);
    PlaneSet ps(w, h, run.prop.l2CacheSize, run.rng);
    const cudaStream_t s = run.stream.get();
    const int iters = run.o.iterations;
    // An operation prepared for this set's planes with `choice` (rows chosen and made once, as
    // the pipeline does), and a call that launches it on the i-th pair.
    auto prepare = [&](const PlaneOp& op, const KernelChoice& choice) {
        const PlaneView in0 = ps.view(ps.in[0]), out0 = ps.view(ps.out[0]);
        return std::make_shared<cuda::PreparedOp>(run.ctx, op, cuda::PlaneShape::of(in0), cuda::PlaneShape::of(out0), choice);
    };
    auto launcher = [&](std::shared_ptr<cuda::PreparedOp> p) {
        return std::function<void(int)>([&, p](int i) {
            p->launch(ps.view(ps.in[i % ps.count()]), ps.view(ps.out[i % ps.count()]), s, run.workspace);
        });
    };
    {
        // The cheapest pass over the plane (read it, write it: what every filter must at least
        // do), timed the same way: the floor that one launch reaching DRAM actually gets.
        PlaneOp copy;
        copy.kind = OpKind::Copy;
        const std::function<void(int)> call = launcher(prepare(copy, KernelChoice{}));
        const double floor_ms = 2.0 * w * h / run.ceil.bytes_per_ms;
        run.add_row(size, "plane copy", "copy", median_ms(s, iters, 5, call), floor_ms);
        run.add_row(size, "plane copy", "copy b2b", back_to_back_ms(s, iters, call), floor_ms);
    }
    for (const Case& c : list) {
        const PlaneOp op = build_chain(c.spec)[0].ops[0];
        const double floor_ms =
            std::max(2.0 * w * h / run.ceil.bytes_per_ms, 2.0 * macs_per_pixel(c, w, h) * w * h / run.ceil.flop_per_ms);
        const PlaneView in0 = ps.view(ps.in[0]), out0 = ps.view(ps.out[0]);
        const bool imma = c.kind == Case::Dense && cuda::imma_eligible(op.conv, cuda::Launch{in0, out0});
        for (const KernelChoice& v : variants_for(c, op, ps)) {
            const bool slow = (v == KernelFamily::Naive || v == KernelFamily::Constant) && c.k >= 27;
            const auto prepared = prepare(op, v);
            const std::function<void(int)> call = launcher(prepared);
            const float ms = median_ms(s, slow ? 5 : iters, slow ? 1 : 5, call);
            const std::string name = op.kind == OpKind::Gradient && v == KernelFamily::Direct ? "gradient" : kernel_choice_name(v);
            run.add_row(size, c.name, name, ms, floor_ms);
            KernelChoice row;
            if (v == KernelFamily::Tensor && imma && cuda::tensor_eligible(op.conv, in0) && parse_kernel_choice("tensor-half", &row))
                // The half-precision tensor path on the same plane: what the integer products buy.
                run.add_row(size, c.name, "tensor-f16", median_ms(s, iters, 5, launcher(prepare(op, row))), floor_ms);
            if (v == KernelFamily::Separable && c.kind != Case::Box && cuda::separable_imma_eligible(op.conv, in0, out0) &&
                parse_kernel_choice("separable-f32", &row))
                // The FP32 separable kernel on the same plane: what the integer row pass buys.
                run.add_row(size, c.name, "separable-f32", median_ms(s, iters, 5, launcher(prepare(op, row))), floor_ms);
            if (v.is_auto()) {
                // The dispatch table's row that auto runs here (kernels/cuda/dispatch_table.cpp).
                std::printf("%-10s %-28s auto runs: %s\n", size.c_str(), c.name.c_str(), prepared->row());
                run.add_row(size, c.name, "auto+launch", median_ms_cold_launch(s, slow ? 5 : iters, call), floor_ms);
                run.add_row(size, c.name, "auto b2b", back_to_back_ms(s, iters, call), floor_ms);
            }
        }
#ifdef VF_HAVE_NPP
        float npp = 0, npp_b2b = 0;  // the same two methods as vfilter's rows
        time_npp(c, ps, s, iters, run.rng, &npp, &npp_b2b);
        run.add_row(size, c.name, "npp", npp, floor_ms);
        run.add_row(size, c.name, "npp b2b", npp_b2b, floor_ms);
#endif
    }
}

// Dense kernels on 10-bit planes (p010's luma), where the integer products do not apply: what the
// half-precision tensor path buys against the FP32 tile and the FFT.
void bench_ten_bit(BenchRun& run) {
    const std::string size = "1920x1080";
    PlaneSet ps(1920, 1080, run.prop.l2CacheSize, run.rng, 10);
    for (int k : {7, 13, 27}) {
        const std::string name = "dense " + std::to_string(k) + "x" + std::to_string(k) + " 10-bit";
        const PlaneOp op = build_chain(dense_spec(k, run.rng))[0].ops[0];
        const Case c{name, "", k, Case::Dense};
        const double floor_ms = std::max(4.0 * 1920 * 1080 / run.ceil.bytes_per_ms,
                                         2.0 * macs_per_pixel(c, 1920, 1080) * 1920 * 1080 / run.ceil.flop_per_ms);
        std::vector<KernelChoice> variants = {KernelFamily::Direct, KernelFamily::Fft, KernelChoice{}};
        if (cuda::tensor_eligible(op.conv, ps.view(ps.in[0]))) variants.insert(variants.begin() + 1, KernelFamily::Tensor);
        const cuda::PlaneShape src = cuda::PlaneShape::of(ps.view(ps.in[0])), dst = cuda::PlaneShape::of(ps.view(ps.out[0]));
        for (const KernelChoice& v : variants) {
            const auto prepared = std::make_shared<cuda::PreparedOp>(run.ctx, op, src, dst, v);
            auto call = [&](int i) {
                prepared->launch(ps.view(ps.in[i % ps.count()]), ps.view(ps.out[i % ps.count()]), run.stream.get(), run.workspace);
            };
            run.add_row(size, name, kernel_choice_name(v), median_ms(run.stream.get(), run.o.iterations, 5, call), floor_ms);
            if (v.is_auto()) std::printf("%-10s %-28s auto runs: %s\n", size.c_str(), name.c_str(), prepared->row());
        }
    }
}

// The long 1D case: 294,912 outputs, 32,768 taps, float32.
void bench_long_1d(BenchRun& run) {
    const cudaStream_t s = run.stream.get();
    const Ceilings& ceil = run.ceil;
    const int count = 294912, taps = 32768;
    std::vector<float> hx(count + taps - 1), hf(taps);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& v : hx) v = d(run.rng);
    for (auto& v : hf) v = d(run.rng);
    DeviceBuffer dx(hx.size() * 4), df(hf.size() * 4), dy(size_t(count) * 4);
    VF_CUDA_CHECK(cudaMemcpy(dx.data(), hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
    VF_CUDA_CHECK(cudaMemcpy(df.data(), hf.data(), hf.size() * 4, cudaMemcpyHostToDevice));
    const float* xp = reinterpret_cast<const float*>(dx.data());
    const float* fp = reinterpret_cast<const float*>(df.data());
    float* yp = reinterpret_cast<float*>(dy.data());
    cuda::Conv1dDirect direct(taps, count);
    cuda::Conv1dFft fft(fp, taps, count);
    const double bytes = 4.0 * (hx.size() + hf.size() + count);
    const double direct_floor = std::max(bytes / ceil.bytes_per_ms, 2.0 * double(count) * taps / ceil.flop_per_ms);
    int len = count + taps - 1;  // the FFT's cost: 5 n log2 n per transform, two transforms
    const double fft_floor = std::max(bytes / ceil.bytes_per_ms, 2 * 5.0 * len * std::log2(double(len)) / ceil.flop_per_ms);
    const float td = median_ms(s, 20, 3, [&](int) { direct.run(xp, fp, yp, s); });
    const float tf = median_ms(s, run.o.iterations, 5, [&](int) { fft.run(xp, yp, s); });
    run.add_row("1D", "294912 x 32768 taps", "direct", td, direct_floor);
    run.add_row("1D", "294912 x 32768 taps", "fft", tf, fft_floor);
}

void write_json(const BenchRun& run, const std::string& path) {
    const cudaDeviceProp& prop = run.prop;
    const Ceilings& ceil = run.ceil;
    const std::vector<Row>& rows = run.rows;
    std::ofstream f(path);
    f << "{\"device\": \"" << prop.name << "\", \"copy_gbps\": " << ceil.bytes_per_ms / 1e6
      << ", \"fp32_tflops\": " << ceil.flop_per_ms / 1e9 << ", \"empty_kernel_ms\": " << ceil.empty_ms
      << ", \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i)
        f << "  {\"plane\": \"" << rows[i].size << "\", \"filter\": \"" << rows[i].filter << "\", \"variant\": \""
          << rows[i].variant << "\", \"ms\": " << rows[i].ms << ", \"floor_ms\": " << rows[i].floor_ms << "}"
          << (i + 1 < rows.size() ? ",\n" : "\n");
    f << "]}\n";
}

}  // namespace

int run_gpu_bench(const GpuBenchOptions& o) {
    std::string why;
    if (!cuda_device_available(&why)) throw Error(ErrorCategory::Device, why);
    BenchRun run(o);
    std::printf("device: %s, %d SMs, L2 %d MB; measured: %.0f GB/s copy (read+write), %.1f TFLOP/s FP32 FMA, "
                "empty kernel %.4f ms\n",
                run.prop.name, run.prop.multiProcessorCount, run.prop.l2CacheSize >> 20, run.ceil.bytes_per_ms / 1e6,
                run.ceil.flop_per_ms / 1e9, run.ceil.empty_ms);
    const std::vector<Case> cases = chosen_cases(o, run.rng);
    std::vector<std::pair<std::string, std::vector<Case>>> plan;
    for (const auto& s : o.sizes) plan.push_back({s, cases});
    if (!o.quick && o.only.empty())
        plan.push_back({"2048x2048", {{"dense 65x65 (anchor: 64x64)", dense_spec(65, run.rng), 65, Case::Dense}}});
    std::printf("\n%-10s %-28s %-10s %10s %10s %9s\n", "plane", "filter", "variant", "ms", "floor ms", "x floor");
    for (const auto& [size, list] : plan) bench_size(run, size, list);
    if (!o.quick && o.only.empty()) bench_ten_bit(run);
    if (o.only.empty()) bench_long_1d(run);
    if (!o.json.empty()) write_json(run, o.json);
    return 0;
}

}  // namespace vf
