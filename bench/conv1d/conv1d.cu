#include "bench/conv1d/conv1d.hpp"

#include <cufft.h>

#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device/fft_common.cuh"

namespace vf::cuda {
namespace {

constexpr int kThreads = 256, kPer = 8, kOut = kThreads * kPer;  // 2048 outputs per block
constexpr int kTapChunk = 512;

// Block (bx, split): outputs [bx*2048, +2048) over taps [split*span, +span).
__global__ void __launch_bounds__(kThreads) conv1d_kernel(const float* __restrict__ x, const float* __restrict__ f, int taps,
                                                          int count, int span, float* __restrict__ partial) {
    __shared__ __align__(16) float sf[kTapChunk];
    __shared__ __align__(16) float sx[kOut + kTapChunk + 16];
    const int out0 = blockIdx.x * kOut;
    const int t_begin = blockIdx.y * span, t_end = min(taps, t_begin + span);
    float acc[kPer] = {};
    for (int t0 = t_begin; t0 < t_end; t0 += kTapChunk) {
        const int tc = min(kTapChunk, t_end - t0);
        for (int i = threadIdx.x; i < kTapChunk; i += kThreads) sf[i] = i < tc ? f[t0 + i] : 0.0f;
        const int total = count + taps - 1;
        for (int i = threadIdx.x; i < kOut + kTapChunk + 16; i += kThreads) {
            const int g = out0 + t0 + i;
            sx[i] = g < total ? x[g] : 0.0f;
        }
        __syncthreads();
        const int base = threadIdx.x * kPer;
        for (int t = 0; t < kTapChunk; t += 8) {
            const float4 fa = *reinterpret_cast<const float4*>(sf + t);
            const float4 fb = *reinterpret_cast<const float4*>(sf + t + 4);
            const float ft[8] = {fa.x, fa.y, fa.z, fa.w, fb.x, fb.y, fb.z, fb.w};
            float w[16];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const float4 v = *reinterpret_cast<const float4*>(sx + base + t + 4 * k);
                w[4 * k] = v.x, w[4 * k + 1] = v.y, w[4 * k + 2] = v.z, w[4 * k + 3] = v.w;
            }
#pragma unroll
            for (int tt = 0; tt < 8; ++tt)
#pragma unroll
                for (int q = 0; q < kPer; ++q) acc[q] = fmaf(ft[tt], w[q + tt], acc[q]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
        const int n = out0 + threadIdx.x * kPer + q;
        if (n < count) partial[static_cast<size_t>(blockIdx.y) * count + n] = acc[q];
    }
}

__global__ void sum_partials_kernel(const float* partial, int splits, int count, float* y) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= count) return;
    float s = 0.0f;
    for (int k = 0; k < splits; ++k) s += partial[static_cast<size_t>(k) * count + n];
    y[n] = s;
}

__global__ void pad_kernel(const float* src, int n, float* dst, int len) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) dst[i] = i < n ? src[i] : 0.0f;
}

}  // namespace

struct Conv1dDirect::Impl {
    int taps, count, splits, span;
    DeviceBuffer partial;
};

Conv1dDirect::Conv1dDirect(int taps, int count) : impl_(std::make_unique<Impl>()) {
    int sms = 0;
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = (count + kOut - 1) / kOut;
    // Enough blocks for 4 per SM, each still summing at least two chunks of taps.
    int splits = std::max(1, std::min((4 * sms + blocks - 1) / blocks, (taps + 2 * kTapChunk - 1) / (2 * kTapChunk)));
    const int span = ((taps + splits - 1) / splits + kTapChunk - 1) / kTapChunk * kTapChunk;
    splits = (taps + span - 1) / span;
    impl_->taps = taps;
    impl_->count = count;
    impl_->splits = splits;
    impl_->span = span;
    impl_->partial = DeviceBuffer(static_cast<size_t>(splits) * count * sizeof(float));
}

Conv1dDirect::~Conv1dDirect() = default;

void Conv1dDirect::run(const float* x, const float* f, float* y, cudaStream_t stream) {
    Impl& m = *impl_;
    const dim3 grid((m.count + kOut - 1) / kOut, m.splits);
    float* partial = reinterpret_cast<float*>(m.partial.data());
    conv1d_kernel<<<grid, kThreads, 0, stream>>>(x, f, m.taps, m.count, m.span, partial);
    VF_CUDA_CHECK_LAUNCH("conv1d_kernel");
    sum_partials_kernel<<<(m.count + 255) / 256, 256, 0, stream>>>(partial, m.splits, m.count, y);
    VF_CUDA_CHECK_LAUNCH("sum_partials_kernel");
}

struct Conv1dFft::Impl {
    int taps, count, len;
    cufftHandle fwd = 0, inv = 0;
    DeviceBuffer spectrum, signal, freq;
    ~Impl() {
        if (fwd) cufftDestroy(fwd);
        if (inv) cufftDestroy(inv);
    }
};

Conv1dFft::Conv1dFft(const float* f, int taps, int count) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.taps = taps;
    m.count = count;
    m.len = fft_size(count + taps - 1);
    const int bins = m.len / 2 + 1;
    cufft_check(cufftPlan1d(&m.fwd, m.len, CUFFT_R2C, 1), "cufftPlan1d (forward)");
    cufft_check(cufftPlan1d(&m.inv, m.len, CUFFT_C2R, 1), "cufftPlan1d (inverse)");
    m.signal = DeviceBuffer(static_cast<size_t>(m.len) * sizeof(float));
    m.freq = DeviceBuffer(static_cast<size_t>(bins) * sizeof(cufftComplex));
    m.spectrum = DeviceBuffer(static_cast<size_t>(bins) * sizeof(cufftComplex));
    float* sig = reinterpret_cast<float*>(m.signal.data());
    pad_kernel<<<(m.len + 255) / 256, 256>>>(f, taps, sig, m.len);
    VF_CUDA_CHECK_LAUNCH("pad_kernel");
    cufft_check(cufftExecR2C(m.fwd, sig, reinterpret_cast<cufftComplex*>(m.spectrum.data())), "cufftExecR2C (taps)");
    VF_CUDA_CHECK(cudaDeviceSynchronize());
}

Conv1dFft::~Conv1dFft() = default;

void Conv1dFft::run(const float* x, float* y, cudaStream_t stream) {
    Impl& m = *impl_;
    float* sig = reinterpret_cast<float*>(m.signal.data());
    auto* freq = reinterpret_cast<cufftComplex*>(m.freq.data());
    const int bins = m.len / 2 + 1;
    pad_kernel<<<(m.len + 255) / 256, 256, 0, stream>>>(x, m.count + m.taps - 1, sig, m.len);
    VF_CUDA_CHECK_LAUNCH("pad_kernel");
    cufft_check(cufftSetStream(m.fwd, stream), "cufftSetStream");
    cufft_check(cufftSetStream(m.inv, stream), "cufftSetStream");
    cufft_check(cufftExecR2C(m.fwd, sig, freq), "cufftExecR2C");
    multiply_conj_kernel<<<(bins + 255) / 256, 256, 0, stream>>>(freq, reinterpret_cast<const cufftComplex*>(m.spectrum.data()),
                                                                 static_cast<size_t>(bins), 1.0f / static_cast<float>(m.len));
    VF_CUDA_CHECK_LAUNCH("multiply_conj_kernel");
    cufft_check(cufftExecC2R(m.inv, freq, sig), "cufftExecC2R");
    VF_CUDA_CHECK(cudaMemcpyAsync(y, sig, static_cast<size_t>(m.count) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace vf::cuda
