// The memory-bound 3x3 filters (whole-number 3x3 convolutions and the gradients) on planar planes
// whose rows allow 8/16-byte accesses: no shared memory, no barrier.
//
// Each thread computes kRows rows of 8 outputs (one 8-byte store per row for 8-bit samples, 16
// bytes for 16-bit). It loads all kRows + 2 input rows it needs before using any (each one vector
// load plus a 4/8-byte halo word on either side, which the neighbouring threads' loads have
// usually brought into L1), unpacks each row to floats once (a sample in the low bits of 2^23's
// bit pattern, minus 2^23: two full-rate instructions instead of a quarter-rate conversion) and
// adds it into the output rows it touches. Work per thread is small, so even a 1080p plane fills
// every SM; strips at the left and right edges gather their samples through the border rule.
//
// On 8-bit planes with taps that fit a signed byte, strip_dp4a_rows.cuh takes over with the same
// layout and integer dot products.
//
// Measured against the alternatives (docs/benchmarks.md): faster than the
// shared-memory tile (wide_tile.cuh) for 3x3 and the gradients, slower for 5x5 and 7x7, which keep
// the tile; a thread walking a tall strip with a sliding window lost to both (too much serial
// work a thread).
#pragma once

#include <cstdint>

#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda::strip {

constexpr int kV = 8;     // samples per thread across: one 8-byte (8-bit) or 16-byte (16-bit) access
constexpr int kHalo = 4;  // samples loaded on either side: whole words (the radius is 1)
constexpr int kBlockX = 32, kBlockY = 8;

template <typename T>
struct Shape {
    static constexpr int kPerWord = 4 / static_cast<int>(sizeof(T));
    static constexpr int kWords = (kV + 2 * kHalo) / kPerWord;  // 4 (8-bit) or 8 (16-bit) per row
};

// True when the plane can take this path: planar, and rows aligned for the vector accesses.
inline bool usable(const PlaneView& v) {
    const int bytes = kV * v.bytes_per_sample;
    return v.step == 1 && v.pitch % bytes == 0 && reinterpret_cast<uintptr_t>(v.data) % bytes == 0;
}

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

// The kIn input rows y0 - R .. y0 - R + kIn - 1 of the strip at x, as words: one vector load
// and halo words per row inside the plane, sample by sample through the border rule at its
// left and right edges.
template <typename T, int R, int kIn>
__device__ __forceinline__ void load_rows(const DevPlane& src, int x, int y0, int border,
                                          uint32_t (&raw)[kIn][Shape<T>::kWords]) {
    const bool inside_x = x >= kHalo && x + kV + kHalo <= src.width;
#pragma unroll
    for (int t = 0; t < kIn; ++t) {
        const int sy = border_index_dev(y0 - R + t, src.height, border);
        const uint8_t* row = sy >= 0 ? src.data + sy * src.pitch : nullptr;
        if (inside_x && row) load_words<T>(row, x, raw[t]);
        else gather_words<T, R>(src, row, x, border, raw[t]);
    }
}

// Finishes and stores the strip's kRows rows (those inside the plane): sums(q, p, out) gives
// output p of row q's kSums sums as floats, f.finish(sums) the value before clamping.
template <typename T, bool kShift, int kRows, typename Filter, typename Sums>
__device__ __forceinline__ void finish_rows(const DevPlane& dst, int x, int y0, const Filter& f, Sums&& sums) {
    const float peak = static_cast<float>(dst.peak);
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        if (y0 + q >= dst.height) break;
        uint32_t out[kV];
#pragma unroll
        for (int p = 0; p < kV; ++p) {
            float s[Filter::kSums];
            sums(q, p, s);
            out[p] = to_sample_bits(f.finish(s), peak);
        }
        store_row<T, kShift>(dst, x, y0 + q, out);
    }
}

// Filter gives kSums (how many sums per output), tap(c, j, i) (sum c, kernel row j, column i)
// and finish(sums) (the output value before clamping). R: the kernel's radius.
template <typename T, bool kShift, int R, int kRows, typename Filter>
__global__ void __launch_bounds__(kBlockX* kBlockY) strip_kernel(DevPlane src, DevPlane dst, Filter f, int border) {
    constexpr int K = 2 * R + 1, N = kV + 2 * R, W = Shape<T>::kWords, S = Filter::kSums, kIn = kRows + 2 * R;
    const int x = (blockIdx.x * kBlockX + threadIdx.x) * kV;
    const int y0 = (blockIdx.y * kBlockY + threadIdx.y) * kRows;
    if (x >= dst.width || y0 >= dst.height) return;
    uint32_t raw[kIn][W];
    load_rows<T, R>(src, x, y0, border, raw);
    float acc[kRows][S][kV] = {};
#pragma unroll
    for (int t = 0; t < kIn; ++t) {
        float s[N];
        unpack<T, kShift, R>(raw[t], src.shift, s);
#pragma unroll
        for (int q = 0; q < kRows; ++q) {
            const int j = t - q;
            if (j < 0 || j >= K) continue;
#pragma unroll
            for (int c = 0; c < S; ++c)
#pragma unroll
                for (int p = 0; p < kV; ++p)
#pragma unroll
                    for (int i = 0; i < K; ++i) acc[q][c][p] = fmaf(f.tap(c, j, i), s[p + i], acc[q][c][p]);
        }
    }
    finish_rows<T, kShift, kRows>(dst, x, y0, f, [&](int q, int p, float (&sums)[S]) {
#pragma unroll
        for (int c = 0; c < S; ++c) sums[c] = acc[q][c][p];
    });
}

// Launches the kernel for the plane's sample type and layout. Call only when usable(src) and
// usable(dst). kRows: 1 for the gradients (two sums per output), 2 for a 3x3 convolution (the
// best of 1, 2 and 4 on the benchmark's rows).
template <int kRows, typename Filter>
void launch(const PlaneView& src, const PlaneView& dst, const Filter& f, int border, cudaStream_t stream) {
    constexpr int R = 1;
    const dim3 g((dst.width + kBlockX * kV - 1) / (kBlockX * kV), (dst.height + kBlockY * kRows - 1) / (kBlockY * kRows));
    const dim3 b(kBlockX, kBlockY);
    if (src.bytes_per_sample == 1)
        strip_kernel<uint8_t, false, R, kRows><<<g, b, 0, stream>>>(to_dev(src), to_dev(dst), f, border);
    else if (src.shift == 0 && dst.shift == 0)
        strip_kernel<uint16_t, false, R, kRows><<<g, b, 0, stream>>>(to_dev(src), to_dev(dst), f, border);
    else
        strip_kernel<uint16_t, true, R, kRows><<<g, b, 0, stream>>>(to_dev(src), to_dev(dst), f, border);
}

}  // namespace vf::cuda::strip
