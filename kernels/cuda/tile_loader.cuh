// Stages a rows x cols window of a channel (origin ox, oy; borders applied) into shared memory
// as floats. Every thread of a 32x8 block issues eight global loads before it stores any, so enough loads are in flight to cover memory
// latency; blocks that lie wholly inside the plane skip the border arithmetic.
#pragma once

#include "kernels/cuda/device_plane.cuh"

namespace vf::cuda {

constexpr int kBlockX = 32, kBlockY = 8;

template <typename T>
__device__ __forceinline__ void load_tile(float* tile, const DevPlane& src, int ox, int oy, int rows, int cols, int border) {
    constexpr int kThreads = kBlockX * kBlockY, kBatch = 8;
    const bool inside = ox >= 0 && oy >= 0 && ox + cols <= src.width && oy + rows <= src.height;
    const int n = rows * cols;
    const int tid = threadIdx.y * kBlockX + threadIdx.x;
    for (int base = tid; base < n; base += kBatch * kThreads) {
        float v[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int idx = base + u * kThreads;
            if (idx < n) {
                const int r = idx / cols, c = idx - r * cols;
                v[u] = inside ? load_sample<T>(src, ox + c, oy + r) : load_bordered<T>(src, ox + c, oy + r, border);
            }
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int idx = base + u * kThreads;
            if (idx < n) tile[idx] = v[u];
        }
    }
}

}  // namespace vf::cuda
