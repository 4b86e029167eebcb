// Memory-bound small kernels (3x3..7x7 convolutions, gradients): each thread computes a 4 x 2
// block of outputs, so a block covers 128 x 16 pixels. The tile is staged with 4-byte global
// loads where the plane is planar and aligned, read back as float4 (conflict-free), and
// written with 4-byte stores: a warp moves 128 bytes per request instead of 32.
#pragma once

#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda::wide {

// 2 rows per thread: a 128 x 16 tile keeps about 1000 blocks in flight even at 1080p (a 128 x 64
// tile gives fewer blocks than two an SM there).
constexpr int kTX = 32, kTY = 8, kPX = 4, kPY = 2;
constexpr int kTileW = kTX * kPX;  // 128 outputs across
constexpr int kTileH = kTY * kPY;  // 64 outputs down
constexpr int kCols = kTileW + 8;  // x from x0 - 4 to x0 + 132: room for radius <= 4

inline dim3 block() { return dim3(kTX, kTY); }
inline dim3 grid(const PlaneView& dst) {
    return dim3((dst.width + kTileW - 1) / kTileW, (dst.height + kTileH - 1) / kTileH);
}

// True when whole 4-sample groups can be moved with one access.
inline bool vector_ok(const PlaneView& v) {
    const int bytes = 4 * v.bytes_per_sample;
    return v.step == 1 && v.shift == 0 && v.pitch % bytes == 0 && reinterpret_cast<uintptr_t>(v.data) % bytes == 0;
}

template <typename T>
struct Vec4;
template <>
struct Vec4<uint8_t> {
    using type = uchar4;
};
template <>
struct Vec4<uint16_t> {
    using type = ushort4;
};

// Stages rows x kCols samples starting at (x0 - 4, oy) into tile (row stride kCols).
template <typename T, bool kVec>
__device__ __forceinline__ void load(float* tile, const DevPlane& src, int x0, int oy, int rows, int border) {
    const int ox = x0 - 4;
    const bool inside = ox >= 0 && oy >= 0 && ox + kCols <= src.width && oy + rows <= src.height;
    const int tid = threadIdx.y * kTX + threadIdx.x;
    if (kVec && inside) {
        constexpr int kGroups = kCols / 4;
        const int n = rows * kGroups;
        for (int idx = tid; idx < n; idx += kTX * kTY) {
            const int r = idx / kGroups, g = idx - r * kGroups;
            const typename Vec4<T>::type v =
                *reinterpret_cast<const typename Vec4<T>::type*>(src.data + (oy + r) * src.pitch + (ox + 4 * g) * sizeof(T));
            *reinterpret_cast<float4*>(tile + r * kCols + 4 * g) = make_float4(v.x, v.y, v.z, v.w);
        }
        return;
    }
    const int n = rows * kCols;
#pragma unroll 4
    for (int idx = tid; idx < n; idx += kTX * kTY) {
        const int r = idx / kCols, c = idx - r * kCols;
        tile[idx] = inside ? load_sample<T>(src, ox + c, oy + r) : load_bordered<T>(src, ox + c, oy + r, border);
    }
}

// The 12 tile values x0 + 4*tx - 4 .. + 7 of tile row r, as three float4 reads.
__device__ __forceinline__ void segment(const float* tile, int r, float (&s)[12]) {
    const float4* p = reinterpret_cast<const float4*>(tile + r * kCols + 4 * threadIdx.x);
    const float4 a = p[0], b = p[1], c = p[2];
    s[0] = a.x, s[1] = a.y, s[2] = a.z, s[3] = a.w;
    s[4] = b.x, s[5] = b.y, s[6] = b.z, s[7] = b.w;
    s[8] = c.x, s[9] = c.y, s[10] = c.z, s[11] = c.w;
}

// Writes 4 finished values at (x, y); one 4-byte store when the row allows it.
template <typename T, bool kVec>
__device__ __forceinline__ void store4(const DevPlane& dst, int x, int y, const float (&v)[4]) {
    if (y >= dst.height) return;
    if (kVec && x + 3 < dst.width) {
        // Components set one by one: taking the vector's address would put it on the stack
        // (local memory).
        const float peak = static_cast<float>(dst.peak);
        auto q = [&](int p) { return static_cast<T>(static_cast<int>(fminf(v[p] > 0.0f ? v[p] : 0.0f, peak))); };
        typename Vec4<T>::type o;
        o.x = q(0);
        o.y = q(1);
        o.z = q(2);
        o.w = q(3);
        *reinterpret_cast<typename Vec4<T>::type*>(dst.data + y * dst.pitch + x * sizeof(T)) = o;
        return;
    }
#pragma unroll
    for (int p = 0; p < 4; ++p)
        if (x + p < dst.width) store_sample<T>(dst, x + p, y, v[p]);
}

// Writes this thread's 4 x kPY outputs of the block at (x0, y0); value(q, p) gives the finished
// value of row q, column p.
template <typename T, bool kVec, typename Value>
__device__ __forceinline__ void store_block(const DevPlane& dst, int x0, int y0, Value&& value) {
    const int x = x0 + 4 * threadIdx.x;
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kPY; ++q) {
        float v[4];
#pragma unroll
        for (int p = 0; p < 4; ++p) v[p] = value(q, p);
        store4<T, kVec>(dst, x, y0 + threadIdx.y * kPY + q, v);
    }
}

}  // namespace vf::cuda::wide
