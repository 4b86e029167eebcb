// Large dense kernels through the FFT (cuFFT, whole plane): the plane is extended by the
// kernel's radius with the border rule, transformed (real to complex), multiplied by the
// conjugate spectrum of the kernel (cross-correlation, which is what every path computes), and
// transformed back; then scaled, rounded and clamped like every other path. O(log n) work per
// pixel whatever the kernel size. Plans and kernel spectra are made once per size and kernel.
#include <cufft.h>
#include <memory>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/fft_common.cuh"
#include "kernels/cuda/op_cache.hpp"

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

// Everything for one (plane size, kernel): plans, the kernel's spectrum, work buffers.
struct FftSetup {
    int ew = 0, eh = 0;  // transform size
    cufftHandle fwd = 0, inv = 0;
    DeviceBuffer spectrum, ext, freq;
    ~FftSetup() {
        if (fwd) cufftDestroy(fwd);
        if (inv) cufftDestroy(inv);
    }
};

std::unique_ptr<FftSetup> make_setup(const ConvolveOp& op, int w, int h) {
    auto s = std::make_unique<FftSetup>();
    s->ew = fft_size(w + op.kw - 1);
    s->eh = fft_size(h + op.kh - 1);
    const size_t real = static_cast<size_t>(s->ew) * s->eh;
    const size_t cplx = static_cast<size_t>(s->ew / 2 + 1) * s->eh;
    cufft_check(cufftPlan2d(&s->fwd, s->eh, s->ew, CUFFT_R2C), "cufftPlan2d (forward)");
    cufft_check(cufftPlan2d(&s->inv, s->eh, s->ew, CUFFT_C2R), "cufftPlan2d (inverse)");
    s->ext = DeviceBuffer(real * sizeof(float));
    s->freq = DeviceBuffer(cplx * sizeof(cufftComplex));
    s->spectrum = DeviceBuffer(cplx * sizeof(cufftComplex));
    // The kernel at the origin of a zero plane, transformed once.
    std::vector<float> kimg(real, 0.0f);
    for (int j = 0; j < op.kh; ++j)
        for (int i = 0; i < op.kw; ++i) kimg[static_cast<size_t>(j) * s->ew + i] = static_cast<float>(op.k[j * op.kw + i]);
    copy_to_device_now(s->ext.data(), kimg.data(), real * sizeof(float));
    cufft_check(cufftExecR2C(s->fwd, reinterpret_cast<cufftReal*>(s->ext.data()),
                             reinterpret_cast<cufftComplex*>(s->spectrum.data())),
                "cufftExecR2C (kernel)");
    VF_CUDA_CHECK(cudaDeviceSynchronize());
    return s;
}

// One setup per stream: the plans and work buffers are scratch that concurrent streams must not share.
FftSetup& setup_for(const ConvolveOp& op, int w, int h, cudaStream_t stream) {
    static OpCache<FftSetup> cache;
    return cache.get(op, pack(w, h), [&] { return make_setup(op, w, h); }, stream);
}

}  // namespace

void conv_fft(const ConvolveOp& op, const Launch& l) {
    FftSetup& s = setup_for(op, l.dst.width, l.dst.height, l.stream);
    const int border = border_mode(l.border);
    const dim3 block(32, 8);
    const dim3 egrid((s.ew + 31) / 32, (s.eh + 7) / 8), ogrid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    float* ext = reinterpret_cast<float*>(s.ext.data());
    if (l.src.bytes_per_sample == 1)
        extend_kernel<uint8_t><<<egrid, block, 0, l.stream>>>(to_dev(l.src), ext, s.ew, s.eh, op.kw / 2, op.kh / 2, border);
    else
        extend_kernel<uint16_t><<<egrid, block, 0, l.stream>>>(to_dev(l.src), ext, s.ew, s.eh, op.kw / 2, op.kh / 2, border);
    VF_CUDA_CHECK_LAUNCH("extend_kernel");
    cufft_check(cufftSetStream(s.fwd, l.stream), "cufftSetStream");
    cufft_check(cufftSetStream(s.inv, l.stream), "cufftSetStream");
    auto* freq = reinterpret_cast<cufftComplex*>(s.freq.data());
    cufft_check(cufftExecR2C(s.fwd, ext, freq), "cufftExecR2C");
    const size_t n = static_cast<size_t>(s.ew / 2 + 1) * s.eh;
    multiply_conj_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, l.stream>>>(
        freq, reinterpret_cast<const cufftComplex*>(s.spectrum.data()), n, 1.0f / (static_cast<float>(s.ew) * s.eh));
    VF_CUDA_CHECK_LAUNCH("multiply_conj_kernel");
    cufft_check(cufftExecC2R(s.inv, freq, ext), "cufftExecC2R");
    if (l.dst.bytes_per_sample == 1)
        finish_kernel<uint8_t><<<ogrid, block, 0, l.stream>>>(ext, s.ew, to_dev(l.dst), op.rdiv, op.bias);
    else
        finish_kernel<uint16_t><<<ogrid, block, 0, l.stream>>>(ext, s.ew, to_dev(l.dst), op.rdiv, op.bias);
    VF_CUDA_CHECK_LAUNCH("finish_kernel");
}

}  // namespace vf::cuda
