// Large dense kernels through the FFT (cuFFT, whole plane): the plane is extended by the
// kernel's radius with the border rule, transformed (real to complex), multiplied by the
// conjugate spectrum of the kernel (cross-correlation, which is what every path computes), and
// transformed back; then scaled, rounded and clamped like every other path. O(log n) work per
// pixel whatever the kernel size. The kernel's spectrum is made when the operation is prepared;
// the plans and work buffers belong to the launching stream's workspace (scratch that concurrent
// streams must not share).
#include <cufft.h>
#include <memory>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/fft_common.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void extend_kernel(DevPlane src, float* ext, int ew, int eh, int rx, int ry, int border) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= ew || y >= eh) return;
    const int sx = x - rx, sy = y - ry;
    float v = 0.0f;
    if (sx < src.width + rx && sy < src.height + ry) v = load_bordered<T>(src, sx, sy, border);
    ext[static_cast<size_t>(y) * ew + x] = v;
}

template <typename T>
__global__ void finish_kernel(const float* ext, int ew, DevPlane dst, float rdiv, float bias) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    store_sample<T>(dst, x, y, finish_convolve(ext[static_cast<size_t>(y) * ew + x], rdiv, bias));
}

// A cuFFT plan, destroyed with its owner.
struct Plan {
    cufftHandle h = 0;
    Plan(int eh, int ew, cufftType type, const char* what) { cufft_check(cufftPlan2d(&h, eh, ew, type), what); }
    ~Plan() {
        if (h) cufftDestroy(h);
    }
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
};

// A stream's plans and work buffers for one transform size.
struct FftScratch {
    Plan fwd, inv;
    DeviceBuffer ext, freq;
    FftScratch(int ew, int eh)
        : fwd(eh, ew, CUFFT_R2C, "cufftPlan2d (forward)"), inv(eh, ew, CUFFT_C2R, "cufftPlan2d (inverse)"),
          ext(static_cast<size_t>(ew) * eh * sizeof(float)), freq(static_cast<size_t>(ew / 2 + 1) * eh * sizeof(cufftComplex)) {}
};

constexpr int kFftScratch = 1;  // the workspace's tag for FftScratch

// The transform size and the kernel's spectrum.
struct FftState : RowState {
    int ew = 0, eh = 0;
    DeviceBuffer spectrum;
};

}  // namespace

RowStatePtr fft_prepare(const ConvolveOp& op, const Launch& l) {
    auto s = std::make_unique<FftState>();
    s->ew = fft_size(l.dst.width + op.kw - 1);
    s->eh = fft_size(l.dst.height + op.kh - 1);
    const size_t real = static_cast<size_t>(s->ew) * s->eh;
    const size_t cplx = static_cast<size_t>(s->ew / 2 + 1) * s->eh;
    s->spectrum = DeviceBuffer(cplx * sizeof(cufftComplex));
    // The kernel at the origin of a zero plane, transformed once.
    std::vector<float> kimg(real, 0.0f);
    for (int j = 0; j < op.kh; ++j)
        for (int i = 0; i < op.kw; ++i) kimg[static_cast<size_t>(j) * s->ew + i] = static_cast<float>(op.k[j * op.kw + i]);
    DeviceBuffer image = upload(kimg);
    Stream stream;
    Plan fwd(s->eh, s->ew, CUFFT_R2C, "cufftPlan2d (forward)");
    cufft_check(cufftSetStream(fwd.h, stream.get()), "cufftSetStream");
    cufft_check(cufftExecR2C(fwd.h, reinterpret_cast<cufftReal*>(image.data()), reinterpret_cast<cufftComplex*>(s->spectrum.data())),
                "cufftExecR2C (kernel)");
    stream.sync();
    s->device_bytes = static_cast<int64_t>(s->spectrum.size());
    return s;
}

void conv_fft(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const FftState& st = state_as<FftState>(state);
    if (!l.workspace) throw Error(ErrorCategory::Internal, "the fft row launched without a workspace");
    FftScratch& s = l.workspace->get<FftScratch>(kFftScratch, (static_cast<uint64_t>(st.ew) << 32) | static_cast<uint32_t>(st.eh),
                                                 [&] { return std::make_shared<FftScratch>(st.ew, st.eh); });
    const int ew = st.ew, eh = st.eh;
    const int border = border_mode(l.border);
    const dim3 block(32, 8);
    const dim3 egrid((ew + 31) / 32, (eh + 7) / 8), ogrid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    float* ext = reinterpret_cast<float*>(s.ext.data());
    if (l.src.bytes_per_sample == 1)
        extend_kernel<uint8_t><<<egrid, block, 0, l.stream>>>(to_dev(l.src), ext, ew, eh, op.kw / 2, op.kh / 2, border);
    else
        extend_kernel<uint16_t><<<egrid, block, 0, l.stream>>>(to_dev(l.src), ext, ew, eh, op.kw / 2, op.kh / 2, border);
    VF_CUDA_CHECK_LAUNCH("extend_kernel");
    cufft_check(cufftSetStream(s.fwd.h, l.stream), "cufftSetStream");
    cufft_check(cufftSetStream(s.inv.h, l.stream), "cufftSetStream");
    auto* freq = reinterpret_cast<cufftComplex*>(s.freq.data());
    cufft_check(cufftExecR2C(s.fwd.h, ext, freq), "cufftExecR2C");
    const size_t n = static_cast<size_t>(ew / 2 + 1) * eh;
    multiply_conj_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, l.stream>>>(
        freq, reinterpret_cast<const cufftComplex*>(st.spectrum.data()), n, 1.0f / (static_cast<float>(ew) * eh));
    VF_CUDA_CHECK_LAUNCH("multiply_conj_kernel");
    cufft_check(cufftExecC2R(s.inv.h, freq, ext), "cufftExecC2R");
    if (l.dst.bytes_per_sample == 1)
        finish_kernel<uint8_t><<<ogrid, block, 0, l.stream>>>(ext, ew, to_dev(l.dst), op.rdiv, op.bias);
    else
        finish_kernel<uint16_t><<<ogrid, block, 0, l.stream>>>(ext, ew, to_dev(l.dst), op.rdiv, op.bias);
    VF_CUDA_CHECK_LAUNCH("finish_kernel");
}

}  // namespace vf::cuda
