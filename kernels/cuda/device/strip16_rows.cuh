// Whole-number K x K convolutions (K odd, 3 to 15) with taps in -128..127, and the 3x3 gradients (Sobel,
// Prewitt, |Laplacian|) at their default divisor, scale and delta, on 8-bit planar planes whose
// rows are 16-byte aligned: the leanest pass over the plane vfilter has, for filters that are
// bound by memory and by instruction issue, not by arithmetic.
//
// Against strip_dp4a_rows.cuh (8 outputs a thread, a float finish of some nine instructions an
// output: integer sum -> float, * rdiv, + bias, + 0.5, clamp, truncate, pack; and a warp with one
// lane at the plane's left or right edge gathering that lane's whole strip sample by sample):
//   - 16 outputs across a thread: one 16-byte load a row (plus 4 or 8 bytes either side for the
//     halo) and one 16-byte store, so the per-row costs (address, loads, border, store) are
//     shared by twice the outputs;
//   - the finish as one 64-bit integer multiply-add and a funnel shift (FixedFinish, solved and
//     checked on the host against the float finish for every sum the kernel can produce), and a
//     saturating pack of two outputs a instruction;
//   - blocks wholly inside the plane take a path with no border rule and no bounds checks; in the
//     others only the halo bytes that lie outside go through the border rule.
// The strips at the plane's left and right edges build their halo from their own samples once
// every row's loads are out (load_row, edge_halo), so no lane waits for one row's data before
// loading the next (docs/benchmarks.md, GPU kernels: dense 3x3 against plane copy).
// Each row's contribution is DP4A (four byte products into an int32) as in strip_dp4a_rows.cuh. From
// 7x7 up the filters are bound by those DP4A; on an H100 DP4A issue at a quarter of FP32's rate,
// so they match FP32's multiply-adds a clock
// and win by skipping the unpacking and the float finish (docs/benchmarks.md, GPU kernels: dense
// 7x7, where `auto` times this row against the tensor cores).
#pragma once

#include <cstdint>

#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/strip_dp4a_rows.cuh"
#include "kernels/fixed_finish.hpp"

namespace vf::cuda::strip16 {

constexpr int kV = 16;  // outputs across a thread

// Bytes loaded on either side of a strip for radius R: whole words, 4 up to radius 4, 8 up to 8.
template <int R>
constexpr int kHalo = (R + 3) / 4 * 4;
template <int R>
constexpr int kWords = (kV + 2 * kHalo<R>) / 4;


// H (4 or 8) bytes at p (p aligned to H) into w[0 .. H / 4 - 1].
template <int H, int N>
__device__ __forceinline__ void load_halo(const uint8_t* p, uint32_t (&w)[N], int first) {
    static_assert(H == 4 || H == 8, "radius up to 8");
    if constexpr (H == 4) {
        w[first] = __ldg(reinterpret_cast<const unsigned int*>(p));
    } else {
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
        w[first] = v.x, w[first + 1] = v.y;
    }
}

// 16 read-only bytes at p (16-byte aligned), asking L2 to fetch the 256 bytes around them: the
// next block's strips read the other half (a little faster than a plain __ldg on the 3x3 to 7x7
// and Sobel rows).
__device__ __forceinline__ uint4 load16_l2_256(const uint8_t* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint4 m;
    asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(m.x), "=r"(m.y), "=r"(m.z), "=r"(m.w) : "l"(p));
    return m;
#else
    return __ldg(reinterpret_cast<const uint4*>(p));
#endif
}

// The strip's own 16 bytes at p into w[H / 4 ..].
template <int H, int N>
__device__ __forceinline__ void load_middle(const uint8_t* p, uint32_t (&w)[N]) {
    const uint4 m = load16_l2_256(p);
    w[H / 4] = m.x, w[H / 4 + 1] = m.y, w[H / 4 + 2] = m.z, w[H / 4 + 3] = m.w;
}

// Bytes at - H .. at + 15 + H (at: the strip's first sample in its row), wholly inside the plane.
template <int R>
__device__ __forceinline__ void load_inside(const uint8_t* at, uint32_t (&w)[kWords<R>]) {
    constexpr int H = kHalo<R>;
    load_halo<H>(at - H, w, 0);
    load_middle<H>(at, w);
    load_halo<H>(at + kV, w, H / 4 + 4);
}

// One sample through the border rule (0 outside a zero border).
__device__ __forceinline__ uint32_t sample_at(const uint8_t* row, int x, int width, int border) {
    const int xi = border_index_dev(x, width, border);
    return xi < 0 ? 0u : row[xi];
}

// Sets byte `pos` of a row's words (counted from the first halo byte) to v, a byte; the byte was 0.
template <int N>
__device__ __forceinline__ void put_byte(uint32_t (&w)[N], int pos, uint32_t v) {
    w[pos / 4] |= v << (8 * (pos % 4));
}

template <int R>
struct Words {
    uint32_t w[kWords<R>];
};

// The bytes of a strip that ends past the plane's right edge (widths that are not a multiple of
// 16), x - R .. x + 15 + R one by one through the border rule. Not inlined: only the last strip
// of a row comes here, and inlined it would lengthen every thread's code.
template <int R>
__device__ __noinline__ Words<R> gather(const uint8_t* row, int x, int width, int border) {
    constexpr int H = kHalo<R>;
    Words<R> r{};
#pragma unroll
    for (int s = -R; s < kV + R; ++s) put_byte(r.w, H + s, sample_at(row, x + s, width, border));
    return r;
}

// Whether load_row builds the halo of a strip at the plane's edge from the strip's own samples:
// radius up to 4 (a one-word halo). For 11x11 to 15x15 (two words) it made ptxas spill in the
// rolled strips under their register cap, so those keep byte loads there.
template <int R>
constexpr bool kHaloFromStrip = kHalo<R> == 4;

// The halo of a strip that starts at the plane's left edge (x == 0), from the strip's own 16
// samples (words L .. L + 3 of w, already loaded): samples -H .. -1 are samples H .. 1 (mirror),
// sample 0 (replicate) or 0 (zero border). Halo bytes the filter does not reach (beyond R) get
// in-plane samples too, which meet zero taps.
template <int R>
__device__ __forceinline__ void halo_from_strip_left(uint32_t (&w)[kWords<R>], int border) {
    constexpr int L = kHalo<R> / 4;
#pragma unroll
    for (int i = 0; i < L; ++i) {
        const uint32_t mirror = __byte_perm(w[2 * L - 1 - i], w[2 * L - i], 0x1234);
        const uint32_t replicate = __byte_perm(w[L], 0, 0x0000);
        w[i] = border == 0 ? mirror : (border == 1 ? replicate : 0u);
    }
}

// The same at the right edge (x + 16 == width): samples 16 .. 15 + H are samples 14 .. 15 - H
// (mirror), sample 15 (replicate) or 0.
template <int R>
__device__ __forceinline__ void halo_from_strip_right(uint32_t (&w)[kWords<R>], int border) {
    constexpr int L = kHalo<R> / 4;
#pragma unroll
    for (int i = 0; i < L; ++i) {
        const uint32_t mirror = __byte_perm(w[L + 2 - i], w[L + 3 - i], 0x3456);
        const uint32_t replicate = __byte_perm(w[L + 3], 0, 0x3333);
        w[L + 4 + i] = border == 0 ? mirror : (border == 1 ? replicate : 0u);
    }
}

// Bytes x - H .. x + 15 + H of a row (row == nullptr: a row of zeros, the zero border). Vector
// loads wherever the bytes lie inside the plane. The halo of a strip at the plane's left edge,
// or of one that ends exactly at its right edge (every width that is a multiple of 16), is left
// to edge_halo where kHaloFromStrip holds; byte loads through the border rule remain for a halo
// that reaches past a right edge that is not a multiple of 16, and for the two-word halos.
template <int R>
__device__ __forceinline__ void load_row(const uint8_t* row, int x, int width, int border, uint32_t (&w)[kWords<R>]) {
    constexpr int H = kHalo<R>, L = H / 4;
    if (!row) {
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = 0;
        return;
    }
    if (x + kV > width) {
        const Words<R> g = gather<R>(row, x, width, border);
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = g.w[i];
        return;
    }
    load_middle<H>(row + x, w);
    if (x >= H) {
        load_halo<H>(row + x - H, w, 0);
    } else if (!kHaloFromStrip<R>) {
#pragma unroll
        for (int i = 0; i < L; ++i) w[i] = 0;
#pragma unroll
        for (int s = 1; s <= R; ++s) put_byte(w, H - s, sample_at(row, x - s, width, border));
    }
    if (x + kV + H <= width) {
        load_halo<H>(row + x + kV, w, L + 4);
    } else if (!kHaloFromStrip<R> || x + kV != width) {
#pragma unroll
        for (int i = 0; i < L; ++i) w[L + 4 + i] = 0;
#pragma unroll
        for (int s = 0; s < R; ++s) put_byte(w, H + kV + s, sample_at(row, x + kV + s, width, border));
    }
}

// The halo load_row leaves out, from the strip's own samples: called once the row's loads are
// issued, and after those of the rows loaded with it, so that no load waits for an earlier one's
// data (built as soon as each row was loaded, the halo would make its lane wait for that row
// before the next row's loads go out).
template <int R>
__device__ __forceinline__ void edge_halo(int x, int width, int border, uint32_t (&w)[kWords<R>]) {
    static_assert(kHaloFromStrip<R>, "two-word halos are loaded byte by byte");
    if (x + kV > width) return;  // gathered whole
    if (x < kHalo<R>) halo_from_strip_left<R>(w, border);
    if (x + kV == width) halo_from_strip_right<R>(w, border);
}


// Finishes: the output before saturation to 0..255 from a strip's kSums whole-number sums.

// A convolution's finish (FixedFinish): floor((s * m + c) / 2^(32 - shift)), one 64-bit multiply-
// add, and a funnel shift unless shift is 0 (|rdiv| < 1/4: most kernels).
template <bool kShift>
struct IntegerFinish {
    static constexpr int kSums = 1;
    int m, shift;
    long long c;
    __device__ __forceinline__ int operator()(const int (&s)[1]) const {
        const unsigned long long t = static_cast<unsigned long long>(static_cast<long long>(s[0]) * m + c);
        if (!kShift) return static_cast<int>(t >> 32);
        return static_cast<int>(__funnelshift_l(static_cast<uint32_t>(t), static_cast<uint32_t>(t >> 32), shift));
    }
};

// A gradient's magnitude when divisor, scale and delta are 1, 1 and 0 (Sobel's and Prewitt's
// defaults, |Laplacian|): the float finish is then trunc(sqrtf(gx^2 + gy^2)) clamped to 255, and
// for n = gx^2 + gy^2 below 255^2 that is the integer square root of n (sqrtf of an integer
// below 2^16 that is not a square stays more than 1/512 below the next integer, far above its
// rounding), so: an approximate root, truncated, raised by one where it fell short of a square
// (PTX's bound on sqrt.approx allows that; on an H100 it never happened: the tests pass without
// the correction, |Laplacian|'s perfect squares included).
// The host (gradient_integer_ok) makes sure n fits 31 bits.
struct MagnitudeFinish {
    static constexpr int kSums = 2;
    __device__ __forceinline__ int operator()(const int (&s)[2]) const {
        const int n = min(s[0] * s[0] + s[1] * s[1], 255 * 255);
        float r;
        asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(__fsub_rn(__int_as_float(0x4B000000 | n), 8388608.0f)));
        int k = __float_as_int(__fadd_rz(r, 8388608.0f)) & 0xFFFF;  // trunc(r): r < 256
        if ((k + 1) * (k + 1) <= n) ++k;
        return k;
    }
};

// Input row y (any y: through the border rule when kCheckY) of the strip at x: bytes x - H ..
// x + 15 + H. kCheckX / kCheckY: the block's columns / rows (with their halo) may reach past the
// plane. Blocks wholly inside take neither check: three plain loads a row. At the edges only the
// lanes whose halo lies outside pay for the border rule (load_row).
// `row` is row y's start where y lies inside the plane (callers step it by the pitch: an add,
// where y * pitch would take the multiply-add pipe the DP4A need).
template <int R, bool kCheckX, bool kCheckY>
__device__ __forceinline__ void source_row(const DevPlane& src, const uint8_t* row, int x, int y, int border,
                                           uint32_t (&w)[kWords<R>]) {
    if (kCheckY) {
        const int sy = border_index_dev(y, src.height, border);
        row = sy >= 0 ? src.data + static_cast<long long>(sy) * src.pitch : nullptr;
    }
    if (kCheckX) {
        load_row<R>(row, x, src.width, border, w);
    } else if (kCheckY && !row) {
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = 0;
    } else {
        load_inside<R>(row + x, w);
    }
}

// Finishes the strip's 16 sums (acc[c][p]: sum c of output p) and stores them at (x, y): one
// 16-byte store, or byte by byte for the last strip of a row that ends past the plane.
template <bool kCheckX, typename Finish>
__device__ __forceinline__ void finish_store(const DevPlane& dst, int x, int y, const int (&acc)[Finish::kSums][kV],
                                             const Finish& finish) {
    constexpr int S = Finish::kSums;
    int v[kV];
#pragma unroll
    for (int p = 0; p < kV; ++p) {
        int sums[S];
#pragma unroll
        for (int c = 0; c < S; ++c) sums[c] = acc[c][p];
        v[p] = finish(sums);
    }
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) o[i] = pack4_saturated(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
    uint8_t* out = dst.data + static_cast<long long>(y) * dst.pitch;
    if (!kCheckX || x + kV <= dst.width) {
        *reinterpret_cast<uint4*>(out + x) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
#pragma unroll
        for (int p = 0; p < kV; ++p)
            if (x + p < dst.width) out[x + p] = static_cast<uint8_t>(o[p / 4] >> (8 * (p % 4)));
    }
}

// Up to 5x5: every input row loaded first, then every sum, all unrolled (the small filters' code
// stays short, so nothing is lost to instruction fetch).
template <int K, int kRows, bool kCheckX, bool kCheckY, typename Finish>
__device__ __forceinline__ void strip(const DevPlane& src, const DevPlane& dst,
                                      const strip::PackedTaps<Finish::kSums, K>& taps, const Finish& finish, int border,
                                      int x, int y0) {
    constexpr int R = K / 2, kIn = kRows + 2 * R, S = Finish::kSums, W = kWords<R>;
    uint32_t raw[kIn][W];
#pragma unroll
    for (int t = 0; t < kIn; ++t)
        source_row<R, kCheckX, kCheckY>(src, src.data + static_cast<long long>(y0 - R + t) * src.pitch, x, y0 - R + t,
                                        border, raw[t]);
    if constexpr (kCheckX && kHaloFromStrip<R>) {
#pragma unroll
        for (int t = 0; t < kIn; ++t) edge_halo<R>(x, src.width, border, raw[t]);
    }
    int acc[kRows][S][kV];
    strip::dp4a_sums<K, kRows, kHalo<R>>(raw, taps, acc);
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        if (kCheckY && y0 + q >= dst.height) break;
        finish_store<kCheckX>(dst, x, y0 + q, acc[q], finish);
    }
}

// From 7x7: the kernel rows in a loop that is not unrolled, the next row's loads issued before
// the current row's sums. Unrolled, a large strip is thousands of instructions of straight-line
// code a variant, and its warps would wait for instructions.
template <int K, bool kCheckX, bool kCheckY, typename Finish>
__device__ __forceinline__ void strip_rolled(const DevPlane& src, const DevPlane& dst,
                                             const strip::PackedTaps<Finish::kSums, K>& taps, const Finish& finish,
                                             int border, int x, int y) {
    constexpr int R = K / 2, S = Finish::kSums, W = kWords<R>, M = strip::kWindows<K>;
    int acc[S][kV];
#pragma unroll
    for (int c = 0; c < S; ++c)
#pragma unroll
        for (int p = 0; p < kV; ++p) acc[c][p] = 0;
    uint32_t cur[W], next[W];
    const uint8_t* row = src.data + static_cast<long long>(y - R) * src.pitch;
    source_row<R, kCheckX, kCheckY>(src, row, x, y - R, border, cur);
#pragma unroll 1
    for (int j = 0; j < K; ++j) {
        row += src.pitch;
        if (j + 1 < K) source_row<R, kCheckX, kCheckY>(src, row, x, y - R + j + 1, border, next);
        if constexpr (kCheckX && kHaloFromStrip<R>) edge_halo<R>(x, src.width, border, cur);
        int32_t tw[S][M];
#pragma unroll
        for (int c = 0; c < S; ++c)
#pragma unroll
            for (int m = 0; m < M; ++m) tw[c][m] = taps.w[j][c][m];
        strip::dp4a_row<K, kHalo<R>>(cur, tw, acc);
#pragma unroll
        for (int i = 0; i < W; ++i) cur[i] = next[i];
    }
    finish_store<kCheckX>(dst, x, y, acc, finish);
}

// Filters from this size up take strip_rolled, with registers capped so that this many blocks
// fit an SM (left to itself ptxas gave the 13x13 128 registers a thread: 4 blocks, 16 warps).
constexpr int kRolledFrom = 7;
constexpr int kRolledMinBlocks = 8;

template <int K, int kRows, bool kCheckX, bool kCheckY, typename Finish>
__device__ __forceinline__ void any_strip(const DevPlane& src, const DevPlane& dst,
                                          const strip::PackedTaps<Finish::kSums, K>& taps, const Finish& finish, int border,
                                          int x, int y0) {
    if constexpr (K >= kRolledFrom) {
        static_assert(kRows == 1, "the rolled strips compute one row a thread");
        strip_rolled<K, kCheckX, kCheckY>(src, dst, taps, finish, border, x, y0);
    } else {
        strip<K, kRows, kCheckX, kCheckY>(src, dst, taps, finish, border, x, y0);
    }
}

// One block's strips of dst. taps is a __grid_constant__ so the rolled strips index it by kernel
// row where it lies (the kernel's parameter bank) instead of through a copy in local memory.
template <int K, int kRows, int kBlockX, int kBlockY, typename Taps, typename Finish>
__device__ __forceinline__ void strip16_block(const DevPlane& src, const DevPlane& dst, const Taps& taps,
                                              const Finish& finish, int border) {
    constexpr int R = K / 2;
    const int bx = blockIdx.x * kBlockX * kV, by = blockIdx.y * kBlockY * kRows;
    const int x = bx + threadIdx.x * kV, y0 = by + threadIdx.y * kRows;
    if (x >= dst.width || y0 >= dst.height) return;
    // Decided per block, so a warp never splits between the paths.
    const bool check_x = bx < kHalo<R> || bx + kBlockX * kV + kHalo<R> > src.width;
    const bool check_y = by < R || by + kBlockY * kRows + R > src.height;
    if (!check_x && !check_y) any_strip<K, kRows, false, false>(src, dst, taps, finish, border, x, y0);
    else if (!check_y) any_strip<K, kRows, true, false>(src, dst, taps, finish, border, x, y0);
    else if (!check_x) any_strip<K, kRows, false, true>(src, dst, taps, finish, border, x, y0);
    else any_strip<K, kRows, true, true>(src, dst, taps, finish, border, x, y0);
}

template <int K, int kRows, int kBlockX, int kBlockY, typename Finish>
__global__ void __launch_bounds__(kBlockX* kBlockY, K >= kRolledFrom ? kRolledMinBlocks : 1)
    strip16_kernel(DevPlane src, DevPlane dst, const __grid_constant__ strip::PackedTaps<Finish::kSums, K> taps,
                   Finish finish, int border) {
    strip16_block<K, kRows, kBlockX, kBlockY>(src, dst, taps, finish, border);
}

// The same over a batch of equal-sized planes: block z filters pair z.
template <int K, int kRows, int kBlockX, int kBlockY, typename Finish>
__global__ void __launch_bounds__(kBlockX* kBlockY, K >= kRolledFrom ? kRolledMinBlocks : 1)
    strip16_batch_kernel(const __grid_constant__ DevPlaneBatch planes,
                         const __grid_constant__ strip::PackedTaps<Finish::kSums, K> taps, Finish finish, int border) {
    strip16_block<K, kRows, kBlockX, kBlockY>(planes.src[blockIdx.z], planes.dst[blockIdx.z], taps, finish, border);
}

// Defaults: 1 row a thread, blocks of 8 x 16 threads (128 x 16 outputs), the fastest of rows 1
// and 2, blocks 8, 16 or 32 threads across and 4 to 32 down for 3x3 and 5x5 at 1080p and 4K on
// an H100: narrower blocks put fewer warps at the plane's left
// and right edges, where the halo goes through the border rule (a warp still reads whole
// 128-byte lines: 8 lanes x 16 bytes a row).
template <int K, int S, int kRows = 1, int kBlockY = 16, int kBlockX = 8, typename TapFn, typename Finish>
void launch_with(const PlaneView& src, const PlaneView& dst, TapFn taps, const Finish& finish, int border,
                 cudaStream_t stream) {
    const dim3 g((dst.width + kBlockX * kV - 1) / (kBlockX * kV), (dst.height + kBlockY * kRows - 1) / (kBlockY * kRows));
    const dim3 b(kBlockX, kBlockY);
    const auto packed = strip::pack_taps<S, K>(taps);
    strip16_kernel<K, kRows, kBlockX, kBlockY><<<g, b, 0, stream>>>(to_dev(src), to_dev(dst), packed, finish, border);
}

// count pairs of planes, all of dst[0]'s size, in launches of up to kMaxBatch.
template <int K, int S, int kRows = 1, int kBlockY = 16, int kBlockX = 8, typename TapFn, typename Finish>
void launch_batch_with(const PlaneView* src, const PlaneView* dst, int count, TapFn taps, const Finish& finish, int border,
                       cudaStream_t stream) {
    const auto packed = strip::pack_taps<S, K>(taps);
    for (int first = 0; first < count; first += kMaxBatch) {
        const int n = count - first < kMaxBatch ? count - first : kMaxBatch;
        const dim3 g((dst[0].width + kBlockX * kV - 1) / (kBlockX * kV), (dst[0].height + kBlockY * kRows - 1) / (kBlockY * kRows), n);
        strip16_batch_kernel<K, kRows, kBlockX, kBlockY><<<g, dim3(kBlockX, kBlockY), 0, stream>>>(
            to_dev_batch(src + first, dst + first, n), packed, finish, border);
    }
}

// A whole-number K x K convolution. Call only for byte_rows_16(src) and byte_rows_16(dst), byte taps
// (taps(j, i): row j, column i, in -128..127) and a FixedFinish solved for its sums.
template <int K, typename TapFn>
void launch(const PlaneView& src, const PlaneView& dst, TapFn taps, const FixedFinish& f, int border, cudaStream_t stream) {
    const auto t = [&](int, int j, int i) { return taps(j, i); };
    if (f.shift == 0) launch_with<K, 1>(src, dst, t, IntegerFinish<false>{f.m, 0, f.c}, border, stream);
    else launch_with<K, 1>(src, dst, t, IntegerFinish<true>{f.m, f.shift, f.c}, border, stream);
}

template <int K, typename TapFn>
void launch_batch(const PlaneView* src, const PlaneView* dst, int count, TapFn taps, const FixedFinish& f, int border,
                  cudaStream_t stream) {
    const auto t = [&](int, int j, int i) { return taps(j, i); };
    if (f.shift == 0) launch_batch_with<K, 1>(src, dst, count, t, IntegerFinish<false>{f.m, 0, f.c}, border, stream);
    else launch_batch_with<K, 1>(src, dst, count, t, IntegerFinish<true>{f.m, f.shift, f.c}, border, stream);
}

// Both 3x3 gradients and their magnitude (MagnitudeFinish). taps(c, j, i): gradient c (0: x,
// 1: y), row j, column i. Call only for byte_rows_16(src) and byte_rows_16(dst) and gradients for which
// gradient_integer_ok holds.
template <typename TapFn>
void launch_gradient(const PlaneView& src, const PlaneView& dst, TapFn taps, int border, cudaStream_t stream) {
    launch_with<3, 2>(src, dst, taps, MagnitudeFinish{}, border, stream);
}

template <typename TapFn>
void launch_gradient_batch(const PlaneView* src, const PlaneView* dst, int count, TapFn taps, int border, cudaStream_t stream) {
    launch_batch_with<3, 2>(src, dst, count, taps, MagnitudeFinish{}, border, stream);
}

// Whether a gradient can take launch_gradient: byte taps, divisor 1, scale 1, delta 0, and sums
// small enough that gx^2 + gy^2 fits 31 bits (|g| <= 255 * sum |taps| < 2^15).
template <typename TapFn>
bool gradient_integer_ok(TapFn taps, float divisor, float scale, float delta) {
    if (divisor != 1.0f || scale != 1.0f || delta != 0.0f) return false;
    for (int c = 0; c < 2; ++c) {
        long long sum = 0;
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) {
                const float t = taps(c, j, i);
                if (!(t >= -128.0f && t <= 127.0f) || t != static_cast<float>(static_cast<int>(t))) return false;
                sum += t < 0 ? -static_cast<long long>(t) : static_cast<long long>(t);
            }
        if (sum * 255 >= (1 << 15)) return false;
    }
    return true;
}

}  // namespace vf::cuda::strip16
