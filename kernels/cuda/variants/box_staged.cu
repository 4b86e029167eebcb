// box-staged: box filters by running sums on 8-bit planar planes with 16-byte aligned rows, the
// tile and its halo first staged in shared memory by cp.async (imma_tile.cuh), borders applied
// there (box_sums.cuh says how both box variants work).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device_limits.hpp"
#include "kernels/cuda/device/box_sums.cuh"
#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/imma_tile.cuh"

namespace vf::cuda {
namespace {

// The walk down from the staged tile (see the header comment). Tile: kBoxH + kh - 1 rows of
// kBoxW + 2 pad bytes (pad: the radius rounded up to 16, so that every 16-byte unit is aligned),
// after the column sums in shared memory.
__global__ void __launch_bounds__(kBoxThreads) box_staged_kernel(DevPlane src, DevPlane dst, int kw, int kh, int pad, float scale,
                                                                 float rdiv, float bias, int divisor, int border) {
    extern __shared__ __align__(16) uint8_t smem[];
    auto colsum = reinterpret_cast<int (*)[kBoxStride]>(smem);
    uint8_t* tile = smem + sizeof(int) * kBoxH * kBoxStride;
    const int rx = kw / 2, ry = kh / 2, cols = kBoxW + 2 * pad;
    const int x0 = blockIdx.x * kBoxW, y0 = blockIdx.y * kBoxH;
    imma::stage_tile<kBoxThreads>(tile, cols, src, x0 - pad, y0 - ry, kBoxH + kh - 1, cols, border);
    __syncthreads();
    const int tid = threadIdx.x;
    if (tid < kBoxW + kw - 1) {
        const uint8_t* col = tile + pad - rx + tid;  // tile row 0 is plane row y0 - ry
        int s = 0;
        for (int j = 0; j < kh; ++j) s += col[j * cols];
        for (int q = 0; q < kBoxH; ++q) {
            colsum[q][tid] = s;
            if (q + 1 < kBoxH) s += col[(q + kh) * cols] - col[q * cols];
        }
    } else {
        for (int q = 0; q < kBoxH; ++q) colsum[q][tid] = 0;  // summed into totals past the outputs only
    }
    __syncthreads();
    box_across<uint8_t>(colsum, dst, x0, y0, kw, scale, rdiv, bias, divisor);
}

// Shared memory of box_staged_kernel: the column sums, then the tile.
size_t staged_bytes(int kh, int pad) {
    return sizeof(int) * kBoxH * kBoxStride + static_cast<size_t>(kBoxH + kh - 1) * (kBoxW + 2 * pad);
}

}  // namespace

bool box_staged_takes(const ConvolveOp& op, const Launch& l) {
    if (!is_box(op) || l.src.bytes_per_sample != 1 || l.src.shift != 0 || !byte_rows_16(l.src)) return false;
    // The device is asked only for planes the staged kernel could take.
    const DeviceLimits d = device_limits();
    return d.major >= 8 && staged_bytes(op.kh, box_pad(op)) <= static_cast<size_t>(d.optin_smem);
}

RowStatePtr box_staged_prepare(DeviceContext& ctx) {
    ctx.raise_shared_memory(reinterpret_cast<const void*>(box_staged_kernel));
    return nullptr;
}

void box_staged(const ConvolveOp& op, const Launch& l) {
    const int pad = box_pad(op);
    box_staged_kernel<<<box_grid(l), kBoxThreads, staged_bytes(op.kh, pad), l.stream>>>(
        to_dev(l.src), to_dev(l.dst), op.kw, op.kh, pad, box_scale(op), op.rdiv, op.bias, op.divisor, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("box_staged_kernel");
}

}  // namespace vf::cuda
