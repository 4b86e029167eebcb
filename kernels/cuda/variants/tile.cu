// tile: the block's input tile and halo staged once in shared memory (loaded by all threads in a
// strided loop, so a tile may be larger than the block), 8 outputs per thread down a column (each
// shared load feeds up to 8 multiply-adds), kernel rows taken 8 at a time from the constant arena;
// FP32 sums of whole-number taps. Any size up to kMaxTiledKernel.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/constant_arena.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/tile_loader.cuh"

namespace vf::cuda {
namespace {

// Any size: taps from the constant arena, kernel rows in chunks of 8 (zero-padded).
template <typename T>
__global__ void __launch_bounds__(kTX* kTY) tiled_kernel(DevPlane src, DevPlane dst, int off, int kw, int kh, int khp,
                                                         float rdiv, float bias, int border) {
    extern __shared__ float tile[];
    const int cols = kTX + kw - 1, rows = kTY * kPY + khp - 1;
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    for (int jb = 0; jb < khp; jb += kChunk) {
        for (int i = 0; i < kw; ++i) {
            float v[kChunk + kPY - 1];
            const float* col = tile + (ty0 + jb) * cols + tx + i;
#pragma unroll
            for (int t = 0; t < kChunk + kPY - 1; ++t) v[t] = col[t * cols];
#pragma unroll
            for (int jj = 0; jj < kChunk; ++jj) {
                const float k = c_taps[off + (jb + jj) * kw + i];
#pragma unroll
                for (int q = 0; q < kPY; ++q) acc[q] = fmaf(k, v[jj + q], acc[q]);
            }
        }
    }
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

// The taps' range of the arena, or naive's taps in global memory where the arena is full (the
// same answer).
struct TileState : RowState {
    ConstantSlot slot;
    RowStatePtr fallback;
};

}  // namespace

RowStatePtr tile_prepare(const ConvolveOp& op, DeviceContext& ctx) {
    allow_large_tiles(ctx, reinterpret_cast<const void*>(tiled_kernel<uint8_t>), reinterpret_cast<const void*>(tiled_kernel<uint16_t>));
    auto s = std::make_unique<TileState>();
    s->slot = arena_slot(op, ctx);
    if (!s->slot) s->fallback = naive_prepare(op, ctx);
    s->device_bytes = s->slot ? s->slot.floats() * 4 : s->fallback->device_bytes;
    return s;
}

void tile(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const TileState& s = state_as<TileState>(state);
    if (!s.slot) return conv_naive(op, s.fallback.get(), l);
    const int off = s.slot.offset();
    const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
    const size_t smem = static_cast<size_t>(kTY * kPY + khp - 1) * (kTX + op.kw - 1) * sizeof(float);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        tiled_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                           op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    else
        tiled_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                            op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tiled_kernel");
}

}  // namespace vf::cuda
