// Whole-number K x K filters (K = 3 or 5) with taps in -128..127 on 8-bit planar planes, the
// samples never unpacked: a row's contribution to an output is one or two DP4A instructions
// (four byte products added into an int32) of a 4-byte window of the input row against four
// packed taps. Against strip_rows.cuh's float path, which unpacks every sample (2 instructions)
// and spends one FMA per tap, a 3x3 row costs 1 DP4A per output plus a byte permute for the
// unaligned windows, a 5x5 row 2.
//
// Same threads, loads, edge handling and stores as strip_rows.cuh (8 outputs across, kRows rows
// per thread); the sums are exact integers, turned into the same float the float path sums to,
// so both paths finish (round, clamp) identically.
#pragma once

#include <cstdint>

#include "kernels/cuda/device/strip_rows.cuh"

namespace vf::cuda::strip {

// Windows per kernel row: window m < kCount - 1 holds taps 4m .. 4m + 3; the last one ends at the
// last tap (its leading bytes zero where an earlier window has them), so no window reaches past
// the 16 bytes a thread loads per row.
template <int K>
constexpr int kWindows = (K + 3) / 4;

// First tap of window m (negative: the last window of a 3x3 starts one byte before tap 0).
template <int K>
__host__ __device__ constexpr int window_first_tap(int m) {
    return m < kWindows<K> - 1 ? 4 * m : K - 4;
}

// w[j][c][m]: kernel row j, sum c, window m (a row's taps together, so a kernel that walks the
// rows in a loop reads one row's with one index).
template <int S, int K>
struct PackedTaps {
    int32_t w[K][S][kWindows<K>];
};

// Packs taps(c, j, i) (sum c, kernel row j, column i), whole numbers in -128..127, on the host.
template <int S, int K, typename TapFn>
PackedTaps<S, K> pack_taps(TapFn taps) {
    PackedTaps<S, K> p{};
    for (int c = 0; c < S; ++c)
        for (int j = 0; j < K; ++j)
            for (int m = 0; m < kWindows<K>; ++m) {
                uint32_t word = 0;
                for (int b = 0; b < 4; ++b) {
                    const int i = window_first_tap<K>(m) + b;
                    const bool mine = i >= 0 && i < K && (m == kWindows<K> - 1 ? i >= 4 * m : true);
                    const int t = mine ? taps(c, j, i) : 0;
                    word |= (static_cast<uint32_t>(t) & 0xFFu) << (8 * b);
                }
                p.w[j][c][m] = static_cast<int32_t>(word);
            }
    return p;
}

// d = c + the four products of a's unsigned bytes and b's signed bytes.
__device__ __forceinline__ int dp4a_us(uint32_t a, int32_t b, int c) {
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// The 4 bytes starting at byte o of a row's N words (o is a compile-time constant once unrolled).
template <int N>
__device__ __forceinline__ uint32_t window(const uint32_t (&w)[N], int o) {
    const int i = o >> 2, k = o & 3;
    return k == 0 ? w[i] : __byte_perm(w[i], w[i + 1], 0x3210 + 0x1111 * k);
}

// One input row's contribution to kV outputs: acc[c][p] += the DP4A products of the row's words
// `w` (output p's first sample at byte p + H - K / 2, H the halo loaded left of the first output)
// with the row's packed taps tw[c][m].
//
// Each window is built with a byte permute where it is not aligned: DP4A, not the permutes, is the
// scarce instruction, so taps packed for each of the four byte offsets (no permutes, more DP4A)
// were slower (docs/benchmarks.md, tried and not kept).
template <int K, int H, int S, int kV, int W>
__device__ __forceinline__ void dp4a_row(const uint32_t (&w)[W], const int32_t (&tw)[S][kWindows<K>], int (&acc)[S][kV]) {
    constexpr int R = K / 2;
    static_assert(H >= R && (kV - 1 + H + R) / 4 < W, "the words must hold every output's window");
#pragma unroll
    for (int p = 0; p < kV; ++p)
#pragma unroll
        for (int m = 0; m < kWindows<K>; ++m) {
            // Tap i of output p sits at byte p + H - R + i of the row's words.
            const uint32_t win = window(w, p + H - R + window_first_tap<K>(m));
#pragma unroll
            for (int c = 0; c < S; ++c) acc[c][p] = dp4a_us(win, tw[c][m], acc[c][p]);
        }
}

// The DP4A sums of kRows rows of kV outputs from the kRows + K - 1 input rows `raw`:
// acc[q][c][p] for sum c of output p in row q. Used by dp4a_kernel (8 outputs a thread) and
// strip16_rows.cuh (16, up to 5x5).
template <int K, int kRows, int H, int S, int kV, int W>
__device__ __forceinline__ void dp4a_sums(const uint32_t (&raw)[kRows + K - 1][W], const PackedTaps<S, K>& taps,
                                          int (&acc)[kRows][S][kV]) {
#pragma unroll
    for (int q = 0; q < kRows; ++q)
#pragma unroll
        for (int c = 0; c < S; ++c)
#pragma unroll
            for (int p = 0; p < kV; ++p) acc[q][c][p] = 0;
#pragma unroll
    for (int t = 0; t < kRows + K - 1; ++t)
#pragma unroll
        for (int q = 0; q < kRows; ++q) {
            const int j = t - q;
            if (j >= 0 && j < K) dp4a_row<K, H>(raw[t], taps.w[j], acc[q]);
        }
}

// An integer sum as a float, exactly: |v| < 2^22 placed in the mantissa of 1.5 * 2^23 (two
// full-rate instructions instead of a quarter-rate conversion).
__device__ __forceinline__ float exact_float(int v) {
    return __fsub_rn(__int_as_float(0x4B400000 + v), 12582912.0f);
}

// Filter as for strip_kernel; its taps come packed in `taps` (launch_dp4a packs them).
template <int K, int kRows, typename Filter>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    dp4a_kernel(DevPlane src, DevPlane dst, PackedTaps<Filter::kSums, K> taps, Filter f, int border) {
    static_assert(K == 3 || K == 5, "measured and tested for 3x3 and 5x5 (7x7 measured slower than the tile)");
    constexpr int R = K / 2, S = Filter::kSums, W = Shape<uint8_t>::kWords, kIn = kRows + 2 * R;
    const int x = (blockIdx.x * kBlockX + threadIdx.x) * kV;
    const int y0 = (blockIdx.y * kBlockY + threadIdx.y) * kRows;
    if (x >= dst.width || y0 >= dst.height) return;
    uint32_t raw[kIn][W];
    load_rows<uint8_t, R>(src, x, y0, border, raw);
    int acc[kRows][S][kV];
    dp4a_sums<K, kRows, kHalo>(raw, taps, acc);
    finish_rows<uint8_t, false, kRows>(dst, x, y0, f, [&](int q, int p, float (&sums)[S]) {
#pragma unroll
        for (int c = 0; c < S; ++c) sums[c] = exact_float(acc[q][c][p]);
    });
}

// True when every tap of f (f.tap(c, j, i), callable on the host) is a whole number in -128..127
// (DP4A's signed bytes).
template <int K, typename Filter>
bool byte_taps(const Filter& f) {
    for (int c = 0; c < Filter::kSums; ++c)
        for (int j = 0; j < K; ++j)
            for (int i = 0; i < K; ++i) {
                const float t = f.tap(c, j, i);
                if (!(t >= -128.0f && t <= 127.0f) || t != static_cast<float>(static_cast<int>(t))) return false;
            }
    return true;
}

// Launches the kernel. Call only for 8-bit planes with usable(src) and usable(dst), and a filter
// for which byte_taps() holds.
template <int K, int kRows, typename Filter>
void launch_dp4a(const PlaneView& src, const PlaneView& dst, const Filter& f, int border, cudaStream_t stream) {
    const dim3 g((dst.width + kBlockX * kV - 1) / (kBlockX * kV), (dst.height + kBlockY * kRows - 1) / (kBlockY * kRows));
    const dim3 b(kBlockX, kBlockY);
    const auto packed = pack_taps<Filter::kSums, K>([&](int c, int j, int i) { return static_cast<int>(f.tap(c, j, i)); });
    dp4a_kernel<K, kRows, Filter><<<g, b, 0, stream>>>(to_dev(src), to_dev(dst), packed, f, border);
}

}  // namespace vf::cuda::strip
