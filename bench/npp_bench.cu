// See npp_bench.hpp. Built only where NPP is (VF_HAVE_NPP).
#ifdef VF_HAVE_NPP
#include "bench/npp_bench.hpp"

#include <npp.h>

#include <functional>
#include <string>
#include <vector>

#include "bench/gpu_timing.hpp"
#include "common/error.hpp"

namespace vf::bench {
namespace {

using cuda::DeviceBuffer;

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

}  // namespace

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

}  // namespace vf::bench
#endif
