// Stages a rows x cols window of a channel (origin ox, oy; borders applied) into shared memory
// as floats (or halves, for the tensor-core kernel: samples up to 10 bits are exact in them).
// Lane x of every warp takes columns x, x + 32, ...; warp y takes rows y, y + 8, ... (a 32x8
// block), so a warp reads consecutive samples of one row and writes consecutive words of shared
// memory (no bank conflicts), with no division per sample: the source column is resolved once
// per column and the row once per row. Eight loads are issued before any store, so enough are in
// flight to cover memory latency; blocks that lie wholly inside the plane skip the border
// arithmetic.
#pragma once

#include <cuda_fp16.h>

#include "kernels/cuda/device_plane.cuh"

namespace vf::cuda {

constexpr int kBlockX = 32, kBlockY = 8;

template <typename S>
__device__ __forceinline__ S to_tile(float v) {
    if constexpr (sizeof(S) == sizeof(float)) return v;
    else return __float2half_rn(v);
}

template <typename T, typename S = float>
__device__ __forceinline__ void load_tile(S* tile, const DevPlane& src, int ox, int oy, int rows, int cols, int border) {
    constexpr int kBatch = 8;
    const bool inside = ox >= 0 && oy >= 0 && ox + cols <= src.width && oy + rows <= src.height;
    for (int c = threadIdx.x; c < cols; c += kBlockX) {
        const int sx = inside ? ox + c : border_index_dev(ox + c, src.width, border);
        for (int r0 = threadIdx.y; r0 < rows; r0 += kBatch * kBlockY) {
            float v[kBatch];
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int r = r0 + u * kBlockY;
                const int sy = inside ? oy + r : border_index_dev(oy + r, src.height, border);
                v[u] = 0.0f;
                if (r < rows && sx >= 0 && sy >= 0)
                    v[u] = load_sample<T>(src, sx, sy);
            }
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int r = r0 + u * kBlockY;
                if (r < rows) tile[r * cols + c] = to_tile<S>(v[u]);
            }
        }
    }
}

}  // namespace vf::cuda
