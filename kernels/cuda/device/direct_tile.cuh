// Pieces the direct-sum variants share: the 32 x 8 block with 8 outputs a thread down a column
// (tile, tile-f64, small-tile-f64), the taps of a small square kernel as a kernel parameter, and
// a whole-number K x K kernel as the sum strip::strip_kernel runs (strip-f32, strip-dp4a).
#pragma once

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_context.hpp"

#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/tile_loader.cuh"
#include "kernels/cuda/variants.hpp"

namespace vf::cuda {
namespace {

constexpr int kTX = kBlockX, kTY = kBlockY, kPY = 8;  // block 32x8 threads, tile 32 x 64 outputs

// The tile kernels of the two sample sizes: kernels up to 127x127 need up to ~120 KB of shared
// memory a block, beyond the default limit, so the limit is raised on the device when an operation
// is prepared.
inline void allow_large_tiles(DeviceContext& ctx, const void* bytes, const void* words) {
    for (const void* f : {bytes, words}) ctx.raise_shared_memory(f, 160 * 1024);
}

template <typename T>
__device__ __forceinline__ void store_column(const DevPlane& dst, int x, int y0, const float* acc, float rdiv, float bias) {
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kPY; ++q)
        if (y0 + q < dst.height) store_sample<T>(dst, x, y0 + q, finish_convolve(acc[q], rdiv, bias));
}

dim3 tiled_grid(const PlaneView& p) {
    return dim3((p.width + kTX - 1) / kTX, (p.height + kTY * kPY - 1) / (kTY * kPY));
}

template <int K, typename Acc>
struct SmallTaps {
    Acc v[K * K];
};

template <int K>
SmallTaps<K, float> float_taps(const ConvolveOp& op) {
    SmallTaps<K, float> taps;
    for (int i = 0; i < K * K; ++i) taps.v[i] = static_cast<float>(op.k[i]);
    return taps;
}

bool small_square(const ConvolveOp& op) { return op.kw == op.kh && (op.kw == 3 || op.kw == 5 || op.kw == 7); }

// A whole-number K x K kernel for strip::strip_kernel: one sum per output.
template <int K>
struct StripConvolve {
    static constexpr int kSums = 1;
    SmallTaps<K, float> taps;
    float rdiv, bias;
    __host__ __device__ __forceinline__ float tap(int, int j, int i) const { return taps.v[j * K + i]; }
    __device__ __forceinline__ float finish(const float (&sum)[1]) const { return finish_convolve(sum[0], rdiv, bias); }
};

}  // namespace
}  // namespace vf::cuda
