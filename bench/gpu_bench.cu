// GPU benchmark: for each plane size and filter, every vfilter variant and (where the toolkit
// has it) NPP, timed with CUDA events around single launches (warm-up, median of N), inputs
// and outputs rotated over more memory than the L2 holds so caches don't flatter. The floor
// beside each row is max(bytes / bandwidth, 2 * multiply-adds / FP32 rate), both ceilings
// measured in the same run.
#include "bench/gpu_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "bench/conv1d/conv1d.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/dispatch_table.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "kernels/cuda_backend.hpp"

#ifdef VF_HAVE_NPP
#include <npp.h>
#endif

namespace vf {
namespace {

using cuda::DeviceBuffer;
using cuda::Event;
using cuda::Stream;

// Before each timed call, a 256 MB memset: it evicts the L2 (so no input is cached) and keeps
// the GPU busy while the host enqueues the call, so the events measure GPU time, not the host's
// launch latency. Applied alike to vfilter and NPP.
DeviceBuffer& flush_buffer() {
    static DeviceBuffer b(size_t(256) << 20);
    return b;
}

// Median of `iters` event-timed calls of fn(i) after `warm` untimed ones.
float median_ms(cudaStream_t s, int iters, int warm, const std::function<void(int)>& fn) {
    for (int i = 0; i < warm; ++i) fn(i);
    VF_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<float> t;
    Event a, b;
    DeviceBuffer& flush = flush_buffer();
    for (int i = 0; i < iters; ++i) {
        VF_CUDA_CHECK(cudaMemsetAsync(flush.data(), i & 0xFF, flush.size(), s));
        a.record(s);
        fn(warm + i);
        b.record(s);
        t.push_back(b.since(a));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Calls made back to back, as a pipeline makes them: `iters` calls on rotating inputs between two
// events, no flush and no wait between them, so each launch's fixed cost overlaps the previous
// call's work. The mean per call.
float back_to_back_ms(cudaStream_t s, int iters, const std::function<void(int)>& fn) {
    for (int i = 0; i < 5; ++i) fn(i);
    VF_CUDA_CHECK(cudaStreamSynchronize(s));
    Event a, b;
    a.record(s);
    for (int i = 0; i < iters; ++i) fn(i);
    b.record(s);
    return b.since(a) / iters;
}

// The same call timed as an application sees it: from an idle stream, launch cost included.
float median_ms_cold_launch(cudaStream_t s, int iters, const std::function<void(int)>& fn) {
    std::vector<float> t;
    Event a, b;
    for (int i = 0; i < iters; ++i) {
        VF_CUDA_CHECK(cudaStreamSynchronize(s));
        a.record(s);
        fn(i);
        b.record(s);
        t.push_back(b.since(a));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

__global__ void fma_peak_kernel(float* out, int iters) {
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = threadIdx.x * 1e-7f + k;
    const float m = 0.9999f, c = 1e-6f;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], m, c);
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += a[k];
    if (s == 12345.0f) out[0] = s;  // keeps the work alive
}

__global__ void empty_kernel() {}

struct Ceilings {
    double bytes_per_ms = 0;  // device memory, read + written
    double flop_per_ms = 0;   // FP32 FMA = 2 FLOP
    double empty_ms = 0;      // an empty one-block kernel between the events: the fixed cost of any launch
};

Ceilings measure_ceilings(cudaStream_t s) {
    Ceilings c;
    const size_t n = size_t(1) << 30;
    DeviceBuffer a(n), b(n);
    VF_CUDA_CHECK(cudaMemsetAsync(a.data(), 1, n, s));
    const float copy = median_ms(s, 10, 2, [&](int) { VF_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), n, cudaMemcpyDeviceToDevice, s)); });
    c.bytes_per_ms = 2.0 * n / copy;
    int sms = 0;
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    DeviceBuffer out(4);
    const int blocks = sms * 8, threads = 256, iters = 4096;
    const float t = median_ms(s, 10, 2, [&](int) {
        fma_peak_kernel<<<blocks, threads, 0, s>>>(reinterpret_cast<float*>(out.data()), iters);
    });
    VF_CUDA_CHECK_LAUNCH("fma_peak_kernel");
    c.flop_per_ms = 2.0 * 8 * double(blocks) * threads * iters / t;
    c.empty_ms = median_ms(s, 50, 5, [&](int) { empty_kernel<<<1, 32, 0, s>>>(); });
    VF_CUDA_CHECK_LAUNCH("empty_kernel");
    return c;
}

// A set of input and output planes larger together than the L2, visited in turn.
struct PlaneSet {
    int w, h;
    int depth;  // 8: a byte a sample; 10: two bytes a sample (p010's layout without the shift)
    size_t pitch;
    std::vector<DeviceBuffer> in, out;
    PlaneSet(int w_, int h_, size_t l2_bytes, std::mt19937& rng, int depth_ = 8)
        : w(w_), h(h_), depth(depth_), pitch((w_ * (depth_ > 8 ? 2 : 1) + 255) / 256 * 256) {
        const size_t bytes = pitch * h;
        const int count = static_cast<int>(std::max<size_t>(2, (3 * l2_bytes) / (2 * bytes) + 1));
        std::vector<uint8_t> host(bytes);
        for (int i = 0; i < count; ++i) {
            for (auto& v : host) v = static_cast<uint8_t>(rng());
            if (depth > 8)  // samples within the depth: the high byte keeps its low bits only
                for (size_t b = 1; b < bytes; b += 2) host[b] &= static_cast<uint8_t>((1 << (depth - 8)) - 1);
            in.emplace_back(bytes);
            out.emplace_back(bytes);
            VF_CUDA_CHECK(cudaMemcpy(in.back().data(), host.data(), bytes, cudaMemcpyHostToDevice));
        }
    }
    PlaneView view(const DeviceBuffer& b) const {
        PlaneView v;
        v.data = b.data();
        v.pitch = static_cast<std::ptrdiff_t>(pitch);
        v.width = w;
        v.height = h;
        v.bytes_per_sample = depth > 8 ? 2 : 1;
        v.depth = depth;
        return v;
    }
    size_t count() const { return in.size(); }
};

struct Case {
    std::string name;
    std::string spec;  // vfilter filter spec
    int k;             // kernel side (for NPP and the floor)
    enum Kind { Sobel, Gaussian, Box, Dense } kind;
};

std::string dense_spec(int k, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(-9, 9);
    std::ostringstream s;
    s << "convolution=m=";
    for (int i = 0; i < k * k; ++i) s << (i ? " " : "") << d(rng);
    s << ":rdiv=" << 1.0 / (k * k * 4) << ":bias=128";
    return s.str();
}

// Multiply-adds per pixel of the cheapest algorithm vfilter has for the case. For dense kernels
// the cheaper of direct (k*k) and FFT: two real transforms of the extended plane, 2.5 log2(n)
// multiply-adds per point each, plus one complex product (4).
double macs_per_pixel(const Case& c, int w, int h) {
    switch (c.kind) {
    case Case::Sobel: return 12;                     // two 3x3 with 6 non-zero taps each
    case Case::Gaussian: return 2.0 * c.k;           // row + column pass
    case Case::Box: return 4;                        // running sums: 2 adds per pass
    case Case::Dense: {
        const double n = double(w + c.k - 1) * (h + c.k - 1);
        const double fft = (2 * 2.5 * std::log2(n) + 4) * n / (double(w) * h);
        return std::min(double(c.k) * c.k, fft);
    }
    }
    return 0;
}

#ifdef VF_HAVE_NPP
NppStreamContext npp_context(cudaStream_t s) {
    NppStreamContext ctx{};
    int dev = 0;
    VF_CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p{};
    VF_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    ctx.hStream = s;
    ctx.nCudaDeviceId = dev;
    ctx.nMultiProcessorCount = p.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    VF_CUDA_CHECK(cudaStreamGetFlags(s, &ctx.nStreamFlags));
    return ctx;
}

void npp_check(NppStatus st, const char* what) {
    if (st < 0) throw Error(ErrorCategory::Device, std::string(what) + " failed with NPP status " + std::to_string(st));
}

// NPP's nearest equivalent of the case on 8-bit planes (replicate border, the one NPP offers).
// Times it both ways: `isolated` as median_ms, `back_to_back` as back_to_back_ms.
void time_npp(const Case& c, const PlaneSet& ps, cudaStream_t s, int iters, std::mt19937& rng, float* isolated,
              float* back_to_back) {
    const NppStreamContext ctx = npp_context(s);
    const NppiSize size{ps.w, ps.h};
    const NppiPoint zero{0, 0};
    const int step = static_cast<int>(ps.pitch);
    std::vector<float> taps;
    DeviceBuffer dtaps, gx, gy, mag;
    if (c.kind == Case::Dense || c.kind == Case::Gaussian) {
        const int n = c.kind == Case::Dense ? c.k * c.k : c.k;
        std::uniform_real_distribution<float> d(-1, 1);
        for (int i = 0; i < n; ++i) taps.push_back(c.kind == Case::Dense ? d(rng) : 1.0f / n);
        dtaps = DeviceBuffer(taps.size() * sizeof(float));
        VF_CUDA_CHECK(cudaMemcpy(dtaps.data(), taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (c.kind == Case::Sobel) {
        gx = DeviceBuffer(size_t(ps.w) * ps.h * 2);
        gy = DeviceBuffer(size_t(ps.w) * ps.h * 2);
        mag = DeviceBuffer(size_t(ps.w) * ps.h * 2);
    }
    const std::function<void(int)> call = [&](int i) {
        const Npp8u* src = ps.in[i % ps.count()].data();
        Npp8u* dst = ps.out[i % ps.count()].data();
        switch (c.kind) {
        case Case::Dense:
            npp_check(nppiFilterBorder32f_8u_C1R_Ctx(src, step, size, zero, dst, step, size,
                                                     reinterpret_cast<const Npp32f*>(dtaps.data()), NppiSize{c.k, c.k},
                                                     NppiPoint{c.k / 2, c.k / 2}, NPP_BORDER_REPLICATE, ctx),
                      "nppiFilterBorder32f_8u_C1R_Ctx");
            break;
        case Case::Gaussian:
            npp_check(nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(src, step, size, zero, dst, step, size, c.k,
                                                               reinterpret_cast<const Npp32f*>(dtaps.data()),
                                                               NPP_BORDER_REPLICATE, ctx),
                      "nppiFilterGaussAdvancedBorder_8u_C1R_Ctx");
            break;
        case Case::Box:
            npp_check(nppiFilterBoxBorder_8u_C1R_Ctx(src, step, size, zero, dst, step, size, NppiSize{c.k, c.k},
                                                     NppiPoint{c.k / 2, c.k / 2}, NPP_BORDER_REPLICATE, ctx),
                      "nppiFilterBoxBorder_8u_C1R_Ctx");
            break;
        case Case::Sobel:
            npp_check(nppiGradientVectorSobelBorder_8u16s_C1R_Ctx(
                          src, step, size, zero, reinterpret_cast<Npp16s*>(gx.data()), ps.w * 2,
                          reinterpret_cast<Npp16s*>(gy.data()), ps.w * 2, reinterpret_cast<Npp16s*>(mag.data()), ps.w * 2,
                          nullptr, 0, size, NPP_MASK_SIZE_3_X_3, nppiNormL2, NPP_BORDER_REPLICATE, ctx),
                      "nppiGradientVectorSobelBorder_8u16s_C1R_Ctx");
            break;
        }
    };
    *isolated = median_ms(s, iters, 3, call);
    *back_to_back = back_to_back_ms(s, iters, call);
}
#endif

struct PlaneShape10 {
    cuda::PlaneShape src, dst;
};

struct Row {
    std::string size, filter, variant;
    double ms, floor_ms;
};

}  // namespace

int run_gpu_bench(const GpuBenchOptions& o) {
    std::string why;
    if (!cuda_device_available(&why)) throw Error(ErrorCategory::Device, why);
    cudaDeviceProp prop{};
    VF_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    Stream stream;
    cuda::Workspace workspace(stream.get());
    const auto ctx = cuda::DeviceContext::create(0);
    const Ceilings ceil = measure_ceilings(stream.get());
    std::printf("device: %s, %d SMs, L2 %d MB; measured: %.0f GB/s copy (read+write), %.1f TFLOP/s FP32 FMA, "
                "empty kernel %.4f ms\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, ceil.bytes_per_ms / 1e6,
                ceil.flop_per_ms / 1e9, ceil.empty_ms);
    std::mt19937 rng(2026);
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

    std::vector<std::pair<std::string, std::vector<Case>>> plan;
    for (const auto& s : o.sizes) plan.push_back({s, cases});
    if (!o.quick && o.only.empty()) plan.push_back({"2048x2048", {{"dense 65x65 (anchor: 64x64)", dense_spec(65, rng), 65, Case::Dense}}});

    std::vector<Row> rows;
    // Keeps a row for the JSON and prints it.
    auto add_row = [&rows](const std::string& size, const std::string& filter, const std::string& variant, double ms,
                           double floor_ms) {
        rows.push_back({size, filter, variant, ms, floor_ms});
        std::printf("%-10s %-28s %-10s %10.4f %10.4f %9.1f\n", size.c_str(), filter.c_str(), variant.c_str(), ms, floor_ms,
                    ms / floor_ms);
    };
    std::printf("\n%-10s %-28s %-10s %10s %10s %9s\n", "plane", "filter", "variant", "ms", "floor ms", "x floor");
    for (auto& [size, list] : plan) {
        int w = 0, h = 0;
        if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2) throw Error(ErrorCategory::Usage, "bad size " + size);
        PlaneSet ps(w, h, prop.l2CacheSize, rng);
        // An operation prepared for this set's planes with `choice` (rows chosen and made once, as
        // the pipeline does), and a call that launches it on the i-th pair.
        auto prepare = [&](const PlaneOp& op, const KernelChoice& choice) {
            const PlaneView in0 = ps.view(ps.in[0]), out0 = ps.view(ps.out[0]);
            return std::make_shared<cuda::PreparedOp>(ctx, op, cuda::PlaneShape::of(in0), cuda::PlaneShape::of(out0), choice);
        };
        auto launcher = [&](std::shared_ptr<cuda::PreparedOp> p) {
            return std::function<void(int)>([&, p](int i) {
                p->launch(ps.view(ps.in[i % ps.count()]), ps.view(ps.out[i % ps.count()]), stream.get(), workspace);
            });
        };
        {
            // The cheapest pass over the plane (read it, write it: what every filter must at least
            // do), timed the same way: the floor that one launch reaching DRAM actually gets.
            PlaneOp copy;
            copy.kind = OpKind::Copy;
            const std::function<void(int)> call = launcher(prepare(copy, KernelChoice{}));
            const double floor_ms = 2.0 * w * h / ceil.bytes_per_ms;
            add_row(size, "plane copy", "copy", median_ms(stream.get(), o.iterations, 5, call), floor_ms);
            add_row(size, "plane copy", "copy b2b", back_to_back_ms(stream.get(), o.iterations, call), floor_ms);
        }
        for (const Case& c : list) {
            const PlaneOp op = build_chain(c.spec)[0].ops[0];
            const double floor_ms =
                std::max(2.0 * w * h / ceil.bytes_per_ms, 2.0 * macs_per_pixel(c, w, h) * w * h / ceil.flop_per_ms);
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
            for (const KernelChoice& v : variants) {
                const bool slow = (v == KernelFamily::Naive || v == KernelFamily::Constant) && c.k >= 27;
                const auto prepared = prepare(op, v);
                const std::function<void(int)> call = launcher(prepared);
                const float ms = median_ms(stream.get(), slow ? 5 : o.iterations, slow ? 1 : 5, call);
                const std::string name = op.kind == OpKind::Gradient && v == KernelFamily::Direct ? "gradient" : kernel_choice_name(v);
                add_row(size, c.name, name, ms, floor_ms);
                KernelChoice row;
                if (v == KernelFamily::Tensor && imma && cuda::tensor_eligible(op.conv, in0) && parse_kernel_choice("tensor-half", &row))
                    // The half-precision tensor path on the same plane: what the integer products buy.
                    add_row(size, c.name, "tensor-f16", median_ms(stream.get(), o.iterations, 5, launcher(prepare(op, row))), floor_ms);
                if (v == KernelFamily::Separable && c.kind != Case::Box && cuda::separable_imma_eligible(op.conv, in0, out0) &&
                    parse_kernel_choice("separable-f32", &row))
                    // The FP32 separable kernel on the same plane: what the integer row pass buys.
                    add_row(size, c.name, "separable-f32", median_ms(stream.get(), o.iterations, 5, launcher(prepare(op, row))), floor_ms);
                if (v.is_auto()) {
                    // The dispatch table's row that auto runs here (kernels/cuda/dispatch_table.cpp).
                    std::printf("%-10s %-28s auto runs: %s\n", size.c_str(), c.name.c_str(), prepared->row());
                    const float cold = median_ms_cold_launch(stream.get(), slow ? 5 : o.iterations, call);
                    add_row(size, c.name, "auto+launch", cold, floor_ms);
                    const float b2b = back_to_back_ms(stream.get(), o.iterations, call);
                    add_row(size, c.name, "auto b2b", b2b, floor_ms);
                }
            }
#ifdef VF_HAVE_NPP
            float npp = 0, npp_b2b = 0;  // the same two methods as vfilter's rows
            time_npp(c, ps, stream.get(), o.iterations, rng, &npp, &npp_b2b);
            add_row(size, c.name, "npp", npp, floor_ms);
            add_row(size, c.name, "npp b2b", npp_b2b, floor_ms);
#endif
        }
    }
    if (!o.quick && o.only.empty()) {
        // Dense kernels on 10-bit planes (p010's luma), where the integer products do not apply:
        // what the half-precision tensor path buys against the FP32 tile and the FFT.
        const std::string size = "1920x1080";
        PlaneSet ps(1920, 1080, prop.l2CacheSize, rng, 10);
        for (int k : {7, 13, 27}) {
            const std::string name = "dense " + std::to_string(k) + "x" + std::to_string(k) + " 10-bit";
            const PlaneOp op = build_chain(dense_spec(k, rng))[0].ops[0];
            const Case c{name, "", k, Case::Dense};
            const double floor_ms =
                std::max(4.0 * 1920 * 1080 / ceil.bytes_per_ms, 2.0 * macs_per_pixel(c, 1920, 1080) * 1920 * 1080 / ceil.flop_per_ms);
            std::vector<KernelChoice> variants = {KernelFamily::Direct, KernelFamily::Fft, KernelChoice{}};
            if (cuda::tensor_eligible(op.conv, ps.view(ps.in[0]))) variants.insert(variants.begin() + 1, KernelFamily::Tensor);
            const PlaneShape10 shape{cuda::PlaneShape::of(ps.view(ps.in[0])), cuda::PlaneShape::of(ps.view(ps.out[0]))};
            for (const KernelChoice& v : variants) {
                const auto prepared = std::make_shared<cuda::PreparedOp>(ctx, op, shape.src, shape.dst, v);
                auto call = [&](int i) {
                    prepared->launch(ps.view(ps.in[i % ps.count()]), ps.view(ps.out[i % ps.count()]), stream.get(), workspace);
                };
                add_row(size, name, kernel_choice_name(v), median_ms(stream.get(), o.iterations, 5, call), floor_ms);
                if (v.is_auto()) std::printf("%-10s %-28s auto runs: %s\n", size.c_str(), name.c_str(), prepared->row());
            }
        }
    }
    if (o.only.empty()) {
        // The long 1D case: 294,912 outputs, 32,768 taps, float32.
        const int count = 294912, taps = 32768;
        std::vector<float> hx(count + taps - 1), hf(taps);
        std::uniform_real_distribution<float> d(-1, 1);
        for (auto& v : hx) v = d(rng);
        for (auto& v : hf) v = d(rng);
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
        const float td = median_ms(stream.get(), 20, 3, [&](int) { direct.run(xp, fp, yp, stream.get()); });
        const float tf = median_ms(stream.get(), o.iterations, 5, [&](int) { fft.run(xp, yp, stream.get()); });
        add_row("1D", "294912 x 32768 taps", "direct", td, direct_floor);
        add_row("1D", "294912 x 32768 taps", "fft", tf, fft_floor);
    }
    if (!o.json.empty()) {
        std::ofstream f(o.json);
        f << "{\"device\": \"" << prop.name << "\", \"copy_gbps\": " << ceil.bytes_per_ms / 1e6
          << ", \"fp32_tflops\": " << ceil.flop_per_ms / 1e9 << ", \"empty_kernel_ms\": " << ceil.empty_ms
          << ", \"rows\": [\n";
        for (size_t i = 0; i < rows.size(); ++i)
            f << "  {\"plane\": \"" << rows[i].size << "\", \"filter\": \"" << rows[i].filter << "\", \"variant\": \""
              << rows[i].variant << "\", \"ms\": " << rows[i].ms << ", \"floor_ms\": " << rows[i].floor_ms << "}"
              << (i + 1 < rows.size() ? ",\n" : "\n");
        f << "]}\n";
    }
    return 0;
}

}  // namespace vf
