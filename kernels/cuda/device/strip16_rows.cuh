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
// 7x7 up the filters are bound by those DP4A; on the GPUs measured DP4A issue at a quarter of FP32's rate,
// so they match FP32's multiply-adds a clock
// and win by skipping the unpacking and the float finish (docs/benchmarks.md, GPU kernels: dense
// 7x7, where `auto` times this row against the tensor cores).
// The loads live in strip16_loads.cuh, the finishes and the store in strip16_finish.cuh.
#pragma once

#include <cstdint>

#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/strip16_finish.cuh"
#include "kernels/cuda/device/strip16_loads.cuh"
#include "kernels/cuda/device/strip_dp4a_rows.cuh"
#include "kernels/fixed_finish.hpp"

namespace vf::cuda::strip16 {

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
// and 2, blocks 8, 16 or 32 threads across and 4 to 32 down for 3x3 and 5x5 at 1080p and 4K
// (docs/benchmarks.md): narrower blocks put fewer warps at the plane's left
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
