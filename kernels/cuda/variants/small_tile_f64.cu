// small-tile-f64: 3x3, 5x5 and 7x7 with taps that are not whole numbers, compiled per size with the
// taps as kernel parameters and every loop unrolled; double sums in the reference's order.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/tile_loader.cuh"

namespace vf::cuda {
namespace {

// K x K with K in {3, 5, 7}: everything unrolled, taps as kernel parameters. Acc = double for
// non-integer taps: products and sums then round exactly as the CPU reference's (same order,
// no contraction), so ties at .5 go the same way.
template <typename T, int K, typename Acc>
__global__ void __launch_bounds__(kTX* kTY) small_kernel(DevPlane src, DevPlane dst, SmallTaps<K, Acc> taps, float rdiv,
                                                         float bias, int border) {
    constexpr int cols = kTX + K - 1, rows = kTY * kPY + K - 1;
    __shared__ float tile[rows * cols];
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - K / 2, y0 - K / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    if constexpr (sizeof(Acc) == sizeof(double)) {
        double dacc[kPY] = {};
#pragma unroll
        for (int j = 0; j < K; ++j)
#pragma unroll
            for (int i = 0; i < K; ++i)
#pragma unroll
                for (int q = 0; q < kPY; ++q)
                    dacc[q] = __dadd_rn(dacc[q], __dmul_rn(taps.v[j * K + i], tile[(ty0 + q + j) * cols + tx + i]));
#pragma unroll
        for (int q = 0; q < kPY; ++q) acc[q] = static_cast<float>(dacc[q]);
    } else {
#pragma unroll
        for (int i = 0; i < K; ++i) {
            float v[K + kPY - 1];
#pragma unroll
            for (int t = 0; t < K + kPY - 1; ++t) v[t] = tile[(ty0 + t) * cols + tx + i];
#pragma unroll
            for (int j = 0; j < K; ++j)
#pragma unroll
                for (int q = 0; q < kPY; ++q) acc[q] = fmaf(taps.v[j * K + i], v[j + q], acc[q]);
        }
    }
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

template <int K, typename Acc>
void launch_small_acc(const ConvolveOp& op, const Launch& l) {
    SmallTaps<K, Acc> taps;
    for (int i = 0; i < K * K; ++i) taps.v[i] = static_cast<Acc>(op.k[i]);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        small_kernel<uint8_t, K, Acc><<<tiled_grid(l.dst), block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps,
                                                                                op.rdiv, op.bias, border_mode(l.border));
    else
        small_kernel<uint16_t, K, Acc><<<tiled_grid(l.dst), block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps,
                                                                                 op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("small_kernel");
}

}  // namespace

bool small_tile_f64_takes(const ConvolveOp& op, const Launch&) { return small_square(op) && !op.integer; }

void small_tile_f64(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) return launch_small_acc<3, double>(op, l);
    if (op.kw == 5) return launch_small_acc<5, double>(op, l);
    return launch_small_acc<7, double>(op, l);
}

}  // namespace vf::cuda
