// Stages a rows x cols window of a channel (origin ox, oy; borders applied) into shared memory
// as floats (or halves, for the tensor-core kernel: samples up to 10 bits are exact in them).
// Lane x of every warp takes columns x, x + 32, ...; warp y takes rows y, y + 8, ... (a 32x8
// block), so a warp reads consecutive samples of one row and writes consecutive words of shared
// memory (no bank conflicts), with no division per sample: the source column is resolved once
// per column and the row once per row. Eight loads are issued before any store, so enough are in
// flight to cover memory latency; blocks that lie wholly inside the plane skip the border
// arithmetic. For the kernels that allow it (kWords: the separable and tensor kernels), blocks
// inside a plane of planar bytes with 4-byte aligned rows (every decoded 8-bit frame) move 4
// samples at a time (load_tile_words).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda {

constexpr int kBlockX = 32, kBlockY = 8;

template <typename S>
__device__ __forceinline__ S to_tile(float v) {
    if constexpr (sizeof(S) == sizeof(float)) return v;
    else return __float2half_rn(v);
}

// Four bytes (b0 is the lowest) as tile values. No conversion instruction: a byte placed in the
// low mantissa bits of 2^23 (float) or 2^10 (half) reads as 2^23 + b or 2^10 + b, and one
// subtraction leaves b exactly.
__device__ __forceinline__ void store_bytes(float* to, uint32_t w, bool vec) {
    float f[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) f[k] = __fsub_rn(__int_as_float(__byte_perm(w, 0x4B00u, 0x5440u + k)), 8388608.0f);
    if (vec) {
        *reinterpret_cast<float4*>(to) = make_float4(f[0], f[1], f[2], f[3]);
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) to[k] = f[k];
    }
}

__device__ __forceinline__ void store_bytes(__half* to, uint32_t w, bool vec) {
    constexpr uint32_t kMinus1024 = 0xE400E400u;  // two halves of -1024
    __half2 v[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const uint32_t bits = __byte_perm(w, 0x6464u, k ? 0x4342u : 0x4140u);  // halves 0x64bb: 1024 + b
        v[k] = __hadd2(*reinterpret_cast<const __half2*>(&bits), *reinterpret_cast<const __half2*>(&kMinus1024));
    }
    if (vec) {
        *reinterpret_cast<uint2*>(to) = make_uint2(*reinterpret_cast<const uint32_t*>(&v[0]), *reinterpret_cast<const uint32_t*>(&v[1]));
    } else {
        to[0] = __low2half(v[0]), to[1] = __high2half(v[0]), to[2] = __low2half(v[1]), to[3] = __high2half(v[1]);
    }
}

// True when load_tile_words can stage this plane: planar bytes, rows 4-byte aligned (so every
// aligned word holding a sample of a row lies inside the row's pitch).
__device__ __forceinline__ bool words_ok(const DevPlane& src) {
    return src.step == 1 && src.shift == 0 && ((reinterpret_cast<uintptr_t>(src.data) | static_cast<uintptr_t>(src.pitch)) & 3) == 0;
}

// The inside-the-plane case for 8-bit planar samples: 4 tile columns an item, from the aligned
// word holding the first and (when the window is not aligned) the next one, lined up with a
// funnel shift; the columns past the last whole group of 4 go sample by sample. Consecutive
// threads take consecutive groups of a row (a warp reads 128 contiguous bytes). Where the tile
// rows allow it the 4 values are one store (16 bytes of floats, 8 of halves); otherwise four,
// 4-way bank conflicts included: a mapping free of them (a warp on 4 rows x 8 groups) spreads a
// warp's loads over 4 cache lines, which costs more. Four items' loads are issued before any store.
template <typename S>
__device__ __forceinline__ void load_tile_words(S* tile, const DevPlane& src, int ox, int oy, int rows, int cols) {
    constexpr int kThreads = kBlockX * kBlockY, kBatch = 4;
    const int tid = threadIdx.y * kBlockX + threadIdx.x;
    const int groups = cols / 4, n = rows * groups;
    const int s = ox & 3;  // ox >= 0 here
    const uint8_t* base = src.data + static_cast<long long>(oy) * src.pitch + (ox - s);
    const bool vec = cols % 4 == 0 && (reinterpret_cast<uintptr_t>(tile) & 15) == 0;
    const int dr = kThreads / groups, dg = kThreads % groups;  // an item's step in rows and groups
    int r = tid / groups, g = tid % groups;
    for (int i0 = tid; i0 < n; i0 += kBatch * kThreads) {
        uint32_t w[kBatch];
        int at[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            at[u] = -1;
            if (r < rows) {
                const uint32_t* p = reinterpret_cast<const uint32_t*>(base + static_cast<long long>(r) * src.pitch + 4 * g);
                const uint32_t a = __ldg(p), b = s ? __ldg(p + 1) : a;
                w[u] = __funnelshift_r(a, b, 8 * s);
                at[u] = r * cols + 4 * g;
            }
            r += dr, g += dg;
            if (g >= groups) g -= groups, ++r;
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
            if (at[u] >= 0) store_bytes(tile + at[u], w[u], vec);
    }
    const int rest = cols - 4 * groups;
    for (int i = tid; i < rows * rest; i += kThreads) {
        const int rr = i / rest, c = 4 * groups + i % rest;
        tile[rr * cols + c] = to_tile<S>(load_sample<uint8_t>(src, ox + c, oy + rr));
    }
}

// kWords: whether 8-bit tiles may take load_tile_words. The FP32 tile kernels (tile, small-tile-f64)
// pass false: their rows (58 floats for a 27x27) make the word path's stores single and 4-way
// conflicted, and padding the rows for 16-byte stores makes ptxas spill in tiled_kernel<uint8_t>.
template <typename T, typename S = float, bool kWords = true>
__device__ __forceinline__ void load_tile(S* tile, const DevPlane& src, int ox, int oy, int rows, int cols, int border) {
    constexpr int kBatch = 8;
    const bool inside = ox >= 0 && oy >= 0 && ox + cols <= src.width && oy + rows <= src.height;
    if constexpr (sizeof(T) == 1 && kWords) {
        if (inside && cols >= 4 && words_ok(src)) return load_tile_words(tile, src, ox, oy, rows, cols);
    }
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
