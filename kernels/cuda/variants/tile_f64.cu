// tile-f64: tile's staging with double products and sums in the reference's order, for taps that
// are not whole numbers (so ties at .5 round as the CPU reference does).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/tile_loader.cuh"

namespace vf::cuda {
namespace {

// Non-integer kernels of any size: double products and sums in the reference's order (row by
// row, no contraction), taps as doubles from global memory (one broadcast load per tap).
template <typename T>
__global__ void __launch_bounds__(kTX* kTY) tiled_double_kernel(DevPlane src, DevPlane dst, const double* __restrict__ taps,
                                                                int kw, int kh, float rdiv, float bias, int border) {
    extern __shared__ float tile[];
    const int cols = kTX + kw - 1, rows = kTY * kPY + kh - 1;
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    double dacc[kPY] = {};
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i) {
            const double k = taps[j * kw + i];
#pragma unroll
            for (int q = 0; q < kPY; ++q) dacc[q] = __dadd_rn(dacc[q], __dmul_rn(k, tile[(ty0 + q + j) * cols + tx + i]));
        }
    float acc[kPY];
#pragma unroll
    for (int q = 0; q < kPY; ++q) acc[q] = static_cast<float>(dacc[q]);
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

}  // namespace

RowStatePtr tile_f64_prepare(const ConvolveOp& op, DeviceContext& ctx) {
    allow_large_tiles(ctx, reinterpret_cast<const void*>(tiled_double_kernel<uint8_t>),
                      reinterpret_cast<const void*>(tiled_double_kernel<uint16_t>));
    return std::make_unique<BufferState>(upload(op.k));
}

void tile_f64(const ConvolveOp& op, const RowState* s, const Launch& l) {
    const double* taps = reinterpret_cast<const double*>(state_as<BufferState>(s).buffer.data());
    const size_t smem = static_cast<size_t>(kTY * kPY + op.kh - 1) * (kTX + op.kw - 1) * sizeof(float);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        tiled_double_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
            to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
    else
        tiled_double_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
            to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tiled_double_kernel");
}

}  // namespace vf::cuda
