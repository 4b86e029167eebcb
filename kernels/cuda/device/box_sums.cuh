// Box filters (every tap equal, row tap x column tap = +-1): running sums, O(1) work per pixel
// whatever the size. A block of 256 threads (8 warps) makes a kBoxW x kBoxH tile of outputs in
// two phases:
// - down: thread c owns input column x0 - rx + c (kBoxW + kw - 1 <= 256 columns) and walks down
//   the tile's rows keeping the sum of the kh samples around each one (add the sample entering
//   the window, subtract the one leaving), writing these column sums to shared memory;
// - across: a warp takes a row of column sums at a time, makes their running total (8 per lane,
//   then a shuffle scan across the lanes) and each output is the difference of two totals.
// Integer sums: exact (127 x 127 x 1023 < 2^31, and < 2^24 so the float conversion is exact).
// Measured against the designs before it (docs/benchmarks.md): a 64x64 float tile staged with
// its halo (most of its time in the staging), and 64-row tiles with a sliding window across (too
// few blocks at 1080p and a long serial walk per thread).
//
// Two variants for the walk down. box_kernel reads the plane directly, two loads a row, in batches
// issued together: a block waits one memory latency a batch (8 batches at 63 rows), and near the
// top and bottom edges each row goes through the border rule. box_staged_kernel (8-bit planar
// planes with 16-byte aligned rows: every frame vfilter allocates) first stages the tile with its
// halo in shared memory by cp.async, every load of a thread in flight at once (imma_tile.cuh),
// borders applied there, and walks shared memory: box_kernel's warps wait on global loads and the
// barrier, which the staging turns into one wait a block.
#pragma once

#include <vector>

#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/variants.hpp"

namespace vf::cuda {
namespace {

constexpr int kBoxW = 128, kBoxH = 32, kBoxThreads = 256, kBoxStride = 256;
constexpr int kBoxBatch = 16;  // loads issued together in the walk down
static_assert(kBoxH % kBoxBatch == 0, "whole batches");
static_assert(kBoxW + kMaxTiledKernel - 1 <= kBoxThreads, "one thread per input column of the tile");

// With a divisor (FFmpeg's avgblur) each output is the window sum divided by it, rounded down:
// a float quotient corrected by one step either way, exact since sums stay below 2^24.
__device__ __forceinline__ int floor_mean(int sum, float scale, int divisor, float inv, int peak) {
    const int s = scale > 0.0f ? sum : -sum;
    if (s <= 0) return 0;
    int q = static_cast<int>(static_cast<float>(s) * inv);
    q += (q + 1) * divisor <= s;
    q -= q * divisor > s;
    return min(q, peak);
}

// The across phase, shared by both kernels: a warp takes a row of column sums at a time, makes
// their running total (8 per lane, then a shuffle scan across the lanes), and each output is the
// difference of two totals.
template <typename T>
__device__ __forceinline__ void box_across(int (*colsum)[kBoxStride], const DevPlane& dst, int x0, int y0, int kw, float scale,
                                           float rdiv, float bias, int divisor) {
    const int tid = threadIdx.x;
    const int lane = tid % 32, warp = tid / 32;
    const float peak = static_cast<float>(dst.peak);
    const float inv = divisor > 0 ? 1.0f / static_cast<float>(divisor) : 0.0f;
    for (int q = warp; q < kBoxH; q += kBoxThreads / 32) {
        const int y = y0 + q;
        if (y >= dst.height) break;
        // Running totals of the row's column sums: lane l holds those of columns 8l .. 8l + 7.
        int* row = colsum[q];
        int4 a = reinterpret_cast<int4*>(row)[2 * lane], b = reinterpret_cast<int4*>(row)[2 * lane + 1];
        a.y += a.x, a.z += a.y, a.w += a.z, b.x += a.w, b.y += b.x, b.z += b.y, b.w += b.z;
        int before = b.w;  // inclusive scan of the lanes' totals, then minus the own total
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const int t = __shfl_up_sync(0xFFFFFFFFu, before, d);
            if (lane >= d) before += t;
        }
        before -= b.w;
        a.x += before, a.y += before, a.z += before, a.w += before, b.x += before, b.y += before, b.z += before, b.w += before;
        __syncwarp();
        reinterpret_cast<int4*>(row)[2 * lane] = a;
        reinterpret_cast<int4*>(row)[2 * lane + 1] = b;
        __syncwarp();
        // Output x sums column sums x .. x + kw - 1: total(x + kw - 1) - total(x - 1).
        T* out = reinterpret_cast<T*>(dst.data + y * dst.pitch);
#pragma unroll
        for (int i = 0; i < kBoxW / 32; ++i) {
            const int x = lane + 32 * i;
            if (x0 + x >= dst.width) break;
            const int sum = row[x + kw - 1] - (x ? row[x - 1] : 0);
            int v;
            if (divisor > 0) {
                v = floor_mean(sum, scale, divisor, inv, dst.peak);
            } else {
                v = static_cast<int>(fminf(fmaxf(finish_convolve(static_cast<float>(sum) * scale, rdiv, bias), 0.0f), peak));
            }
            out[(x0 + x) * dst.step] = static_cast<T>(v << dst.shift);
        }
    }
}


// The window sum times the one tap value (row tap x column tap) is the 2D sum exactly.
float box_scale(const ConvolveOp& op) { return static_cast<float>(static_cast<long long>(op.row[0]) * op.col[0]); }
int box_pad(const ConvolveOp& op) { return (op.kw / 2 + 15) / 16 * 16; }
dim3 box_grid(const Launch& l) { return dim3((l.dst.width + kBoxW - 1) / kBoxW, (l.dst.height + kBoxH - 1) / kBoxH); }

}  // namespace
}  // namespace vf::cuda
