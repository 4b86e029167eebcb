// See gpu_timing.hpp.
#include "bench/gpu_timing.hpp"

#include <algorithm>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"

namespace vf::bench {
namespace {

using cuda::DeviceBuffer;
using cuda::Event;

// The memset before each timed call (median_ms); applied alike to vfilter and NPP.
DeviceBuffer& flush_buffer() {
    static DeviceBuffer b(size_t(256) << 20);
    return b;
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

}  // namespace

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

float back_to_back_ms(cudaStream_t s, int iters, const std::function<void(int)>& fn) {
    for (int i = 0; i < 5; ++i) fn(i);
    VF_CUDA_CHECK(cudaStreamSynchronize(s));
    Event a, b;
    a.record(s);
    for (int i = 0; i < iters; ++i) fn(i);
    b.record(s);
    return b.since(a) / iters;
}

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

}  // namespace vf::bench
