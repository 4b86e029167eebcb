// small-tile: whole-number 3x3, 5x5 and 7x7 kernels, compiled per size with the taps as kernel
// parameters (constant bank 0), through a shared-memory tile with 4 x 2 outputs per thread
// (wide_tile.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/wide_tile.cuh"

namespace vf::cuda {
namespace {

// Whole-number K x K kernels (K <= 7), memory-bound: 4 x 2 outputs per thread (wide_tile.cuh).
// Input rows are visited once; each feeds the outputs it touches, all indices compile-time.
template <typename T, int K, bool kVec>
__global__ void __launch_bounds__(wide::kTX* wide::kTY) small_wide_kernel(DevPlane src, DevPlane dst, SmallTaps<K, float> taps,
                                                                         float rdiv, float bias, int border) {
    constexpr int R = K / 2, rows = wide::kTileH + K - 1;
    __shared__ __align__(16) float tile[rows * wide::kCols];
    const int x0 = blockIdx.x * wide::kTileW, y0 = blockIdx.y * wide::kTileH;
    wide::load<T, kVec>(tile, src, x0, y0 - R, rows, border);
    __syncthreads();
    const int ty0 = threadIdx.y * wide::kPY;
    float acc[wide::kPY][4] = {};
#pragma unroll
    for (int t = 0; t < wide::kPY + K - 1; ++t) {
        float s[12];
        wide::segment(tile, ty0 + t, s);
#pragma unroll
        for (int q = 0; q < wide::kPY; ++q) {
            const int j = t - q;
            if (j < 0 || j >= K) continue;
#pragma unroll
            for (int i = 0; i < K; ++i)
#pragma unroll
                for (int p = 0; p < 4; ++p) acc[q][p] = fmaf(taps.v[j * K + i], s[p + i - R + 4], acc[q][p]);
        }
    }
    wide::store_block<T, kVec>(dst, x0, y0, [&](int q, int p) { return finish_convolve(acc[q][p], rdiv, bias); });
}

template <typename T, int K, bool kVec>
void launch_wide(const SmallTaps<K, float>& taps, const ConvolveOp& op, const Launch& l) {
    small_wide_kernel<T, K, kVec><<<wide::grid(l.dst), wide::block(), 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.rdiv, op.bias,
                                                               border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("small_wide_kernel");
}

template <int K>
void launch_small_wide(const ConvolveOp& op, const Launch& l) {
    const SmallTaps<K, float> taps = float_taps<K>(op);
    const bool vec = wide::vector_ok(l.src) && wide::vector_ok(l.dst);
    if (l.src.bytes_per_sample == 1) {
        if (vec) launch_wide<uint8_t, K, true>(taps, op, l);
        else launch_wide<uint8_t, K, false>(taps, op, l);
    } else {
        if (vec) launch_wide<uint16_t, K, true>(taps, op, l);
        else launch_wide<uint16_t, K, false>(taps, op, l);
    }
}

}  // namespace

bool small_tile_takes(const ConvolveOp& op, const Launch&) { return small_square(op) && op.integer; }

void small_tile(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) return launch_small_wide<3>(op, l);
    if (op.kw == 5) return launch_small_wide<5>(op, l);
    return launch_small_wide<7>(op, l);
}

}  // namespace vf::cuda
