// Memory-bound small filters (radius 1 to 3: 3x3, 5x5, 7x7 and the 3x3 gradients) on planar
// planes whose rows allow vector accesses, with no shared memory and no barrier.
//
// Each thread owns a strip 8 samples wide and kRows rows tall. It first loads every input row its
// outputs need (kRows + 2R rows; each one 8- or 16-byte load plus a 4- or 8-byte halo word on
// either side, which the neighbouring threads' loads have usually brought into L1), so all of its
// memory traffic is in flight at once: these kernels are bound by how much is in flight, not by
// arithmetic. Then it walks down the rows: each input row is unpacked to floats once (two
// full-rate instructions per sample instead of a quarter-rate conversion) and added into the
// 2R + 1 output rows it touches; an output row is finished and stored, with one vector store,
// as soon as its last input row is in, so only 2R + 1 rows of sums are live.
//
// Threads whose strip or halo crosses the left or right edge gather their samples one by one
// through the border rule; rows above and below the plane come from the border rule at the cost
// of one index per row. Both give the same packed words, so the arithmetic is shared.
#pragma once

#include <cstdint>

#include "kernels/cuda/device_plane.cuh"

namespace vf::cuda::strip {

constexpr int kV = 8;     // samples per thread across: one 8-byte (8-bit) or 16-byte (16-bit) access
constexpr int kHalo = 4;  // samples loaded on either side: whole words, radius <= 3
constexpr int kBlockX = 32, kBlockY = 4;

template <typename T>
struct Shape {
    static constexpr int kPerWord = 4 / static_cast<int>(sizeof(T));
    static constexpr int kWords = (kV + 2 * kHalo) / kPerWord;  // 4 (8-bit) or 8 (16-bit) per row
    // Rows per thread: enough that the halo rows cost little, few enough that a 1080p plane
    // still spreads over every SM (8-bit: 272 blocks of 128 threads) and the raw rows fit in
    // registers (16-bit rows are twice as wide).
    static constexpr int kRows = sizeof(T) == 1 ? 8 : 4;
};

// True when the plane can take this path: planar, and rows aligned for the vector accesses.
inline bool usable(const PlaneView& v) {
    const int bytes = kV * v.bytes_per_sample;
    return v.step == 1 && v.pitch % bytes == 0 && reinterpret_cast<uintptr_t>(v.data) % bytes == 0;
}

template <typename T>
inline dim3 grid(const PlaneView& dst) {
    const int across = kBlockX * kV, down = kBlockY * Shape<T>::kRows;
    return dim3((dst.width + across - 1) / across, (dst.height + down - 1) / down);
}
inline dim3 block() { return dim3(kBlockX, kBlockY); }

// The kWords words of samples x - kHalo .. x + kV + kHalo - 1 of one row, wholly inside the plane.
template <typename T>
__device__ __forceinline__ void load_words(const uint8_t* row, int x, uint32_t (&w)[Shape<T>::kWords]) {
    const T* p = reinterpret_cast<const T*>(row) + x;
    if constexpr (sizeof(T) == 1) {
        w[0] = __ldg(reinterpret_cast<const unsigned int*>(p - kHalo));
        const uint2 m = __ldg(reinterpret_cast<const uint2*>(p));
        w[1] = m.x, w[2] = m.y;
        w[3] = __ldg(reinterpret_cast<const unsigned int*>(p + kV));
    } else {
        const uint2 l = __ldg(reinterpret_cast<const uint2*>(p - kHalo));
        const uint4 m = __ldg(reinterpret_cast<const uint4*>(p));
        const uint2 r = __ldg(reinterpret_cast<const uint2*>(p + kV));
        w[0] = l.x, w[1] = l.y, w[2] = m.x, w[3] = m.y, w[4] = m.z, w[5] = m.w, w[6] = r.x, w[7] = r.y;
    }
}

// The same words at a left or right edge: the samples the filter reads (x - R .. x + kV + R - 1)
// one by one through the border rule; row == nullptr is a row of zeros (zero border).
template <typename T, int R>
__device__ __forceinline__ void gather_words(const DevPlane& src, const uint8_t* row, int x, int border,
                                             uint32_t (&w)[Shape<T>::kWords]) {
    constexpr int P = Shape<T>::kPerWord;
#pragma unroll
    for (int i = 0; i < Shape<T>::kWords; ++i) w[i] = 0;
    if (!row) return;
#pragma unroll
    for (int s = -R; s < kV + R; ++s) {
        const int xi = border_index_dev(x + s, src.width, border);
        const uint32_t v = xi < 0 ? 0u : reinterpret_cast<const T*>(row)[xi];
        w[(s + kHalo) / P] |= v << (8 * sizeof(T) * ((s + kHalo) % P));
    }
}

// Samples x - R .. x + kV + R - 1 of a row of words, as floats. A sample placed in the low bits
// of 2^23's bit pattern and 2^23 taken away is the sample exactly: PRMT + FADD, both full rate.
template <typename T, bool kShift, int R>
__device__ __forceinline__ void unpack(const uint32_t (&w)[Shape<T>::kWords], int shift, float (&s)[kV + 2 * R]) {
    constexpr int P = Shape<T>::kPerWord;
#pragma unroll
    for (int i = 0; i < kV + 2 * R; ++i) {
        const int at = i - R + kHalo, word = at / P, lane = at % P;
        uint32_t bits;
        if constexpr (sizeof(T) == 1) {
            bits = __byte_perm(w[word], 0x4B000000u, 0x7540 | lane);
        } else if constexpr (!kShift) {
            bits = __byte_perm(w[word], 0x4B000000u, lane ? 0x7532 : 0x7510);
        } else {
            bits = (((w[word] >> (16 * lane)) & 0xFFFFu) >> shift) | 0x4B000000u;
        }
        s[i] = __fsub_rn(__uint_as_float(bits), 8388608.0f);
    }
}

// clamp(v, 0, peak) truncated (NaN -> 0), as store_sample; adding 2^23 rounding toward zero
// leaves the integer part in the low bits (no quarter-rate conversion).
__device__ __forceinline__ uint32_t to_sample_bits(float v, float peak) {
    const float c = fminf(v > 0.0f ? v : 0.0f, peak);
    return __float_as_uint(__fadd_rz(c, 8388608.0f)) & 0xFFFFu;
}

// Stores the finished row y of this thread's strip: one vector store when the strip lies inside
// the plane, sample by sample at the right edge.
template <typename T, bool kShift>
__device__ __forceinline__ void store_row(const DevPlane& dst, int x, int y, const uint32_t (&v)[kV]) {
    uint8_t* row = dst.data + y * dst.pitch;
    uint32_t o[kV];
#pragma unroll
    for (int p = 0; p < kV; ++p) o[p] = kShift ? v[p] << dst.shift : v[p];
    if (x + kV <= dst.width) {
        if constexpr (sizeof(T) == 1) {
            uint2 m;
            m.x = __byte_perm(__byte_perm(o[0], o[1], 0x0040), __byte_perm(o[2], o[3], 0x0040), 0x5410);
            m.y = __byte_perm(__byte_perm(o[4], o[5], 0x0040), __byte_perm(o[6], o[7], 0x0040), 0x5410);
            *reinterpret_cast<uint2*>(row + x) = m;
        } else {
            uint4 m;
            m.x = __byte_perm(o[0], o[1], 0x5410);
            m.y = __byte_perm(o[2], o[3], 0x5410);
            m.z = __byte_perm(o[4], o[5], 0x5410);
            m.w = __byte_perm(o[6], o[7], 0x5410);
            *reinterpret_cast<uint4*>(row + x * sizeof(T)) = m;
        }
        return;
    }
#pragma unroll
    for (int p = 0; p < kV; ++p)
        if (x + p < dst.width) reinterpret_cast<T*>(row)[x + p] = static_cast<T>(o[p]);
}

// The walk. Filter gives kSums (how many sums per output), tap(c, j, i) (sum c, kernel row j,
// column i) and finish(sums) (the output value before clamping).
template <typename T, bool kShift, int R, typename Filter>
__global__ void __launch_bounds__(kBlockX* kBlockY) walk_kernel(DevPlane src, DevPlane dst, Filter f, int border) {
    constexpr int K = 2 * R + 1, kRows = Shape<T>::kRows, kIn = kRows + 2 * R, S = Filter::kSums;
    const int x = (blockIdx.x * kBlockX + threadIdx.x) * kV;
    const int y0 = (blockIdx.y * kBlockY + threadIdx.y) * kRows;
    if (x >= dst.width || y0 >= dst.height) return;

    const bool inside_x = x >= kHalo && x + kV + kHalo <= src.width;
    uint32_t raw[kIn][Shape<T>::kWords];
#pragma unroll
    for (int t = 0; t < kIn; ++t) {
        const int sy = border_index_dev(y0 - R + t, src.height, border);
        const uint8_t* row = sy >= 0 ? src.data + sy * src.pitch : nullptr;
        if (inside_x && row) load_words<T>(row, x, raw[t]);
        else gather_words<T, R>(src, row, x, border, raw[t]);
    }

    const float peak = static_cast<float>(dst.peak);
    float acc[S][kRows][kV];
#pragma unroll
    for (int t = 0; t < kIn; ++t) {
        float s[kV + 2 * R];
        unpack<T, kShift, R>(raw[t], src.shift, s);
#pragma unroll
        for (int q = 0; q < kRows; ++q) {
            const int j = t - q;  // the kernel row input row t is for output row q
            if (j < 0 || j >= K) continue;
#pragma unroll
            for (int c = 0; c < S; ++c)
#pragma unroll
                for (int p = 0; p < kV; ++p) {
                    float a = j == 0 ? 0.0f : acc[c][q][p];
#pragma unroll
                    for (int i = 0; i < K; ++i) a = fmaf(f.tap(c, j, i), s[p + i], a);
                    acc[c][q][p] = a;
                }
            if (j == K - 1 && y0 + q < dst.height) {
                uint32_t out[kV];
#pragma unroll
                for (int p = 0; p < kV; ++p) {
                    float sums[S];
#pragma unroll
                    for (int c = 0; c < S; ++c) sums[c] = acc[c][q][p];
                    out[p] = to_sample_bits(f.finish(sums), peak);
                }
                store_row<T, kShift>(dst, x, y0 + q, out);
            }
        }
    }
}

// Launches the walk for the plane's sample type and layout. Call only when usable(src) and
// usable(dst).
template <int R, typename Filter>
void launch(const PlaneView& src, const PlaneView& dst, const Filter& f, int border, cudaStream_t stream) {
    if (src.bytes_per_sample == 1)
        walk_kernel<uint8_t, false, R><<<grid<uint8_t>(dst), block(), 0, stream>>>(to_dev(src), to_dev(dst), f, border);
    else if (src.shift == 0 && dst.shift == 0)
        walk_kernel<uint16_t, false, R><<<grid<uint16_t>(dst), block(), 0, stream>>>(to_dev(src), to_dev(dst), f, border);
    else
        walk_kernel<uint16_t, true, R><<<grid<uint16_t>(dst), block(), 0, stream>>>(to_dev(src), to_dev(dst), f, border);
}

}  // namespace vf::cuda::strip
