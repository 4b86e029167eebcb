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
// Two kernels for the walk down. box_kernel reads the plane directly, two loads a row, in batches
// issued together: a block waits one memory latency a batch (8 batches at 63 rows), and near the
// top and bottom edges each row goes through the border rule. box_staged_kernel (8-bit planar
// planes with 16-byte aligned rows: every frame vfilter allocates) first stages the tile with its
// halo in shared memory by cp.async, every load of a thread in flight at once (imma_tile.cuh),
// borders applied there, and walks shared memory: box_kernel's warps wait on global loads and the
// barrier (ncu), which the staging turns into one wait a block.
#include <cstdlib>
#include <mutex>
#include <vector>

#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_limits.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/imma_tile.cuh"
#include "kernels/cuda/byte_plane.cuh"

namespace vf::cuda {
namespace {

constexpr int kBoxW = 128, kBoxH = 32, kBoxThreads = 256, kBoxStride = 256;
constexpr int kBoxBatch = 16;  // loads issued together in the walk down
static_assert(kBoxH % kBoxBatch == 0, "whole batches");
static_assert(kBoxW + kMaxTiledKernel - 1 <= kBoxThreads, "one thread per input column of the tile");

// The across phase, shared by both kernels: a warp takes a row of column sums at a time, makes
// their running total (8 per lane, then a shuffle scan across the lanes), and each output is the
// difference of two totals.
template <typename T>
__device__ __forceinline__ void box_across(int (*colsum)[kBoxStride], const DevPlane& dst, int x0, int y0, int kw, float scale,
                                           float rdiv, float bias) {
    const int tid = threadIdx.x;
    const int lane = tid % 32, warp = tid / 32;
    const float peak = static_cast<float>(dst.peak);
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
            const float f = fminf(fmaxf(finish_convolve(static_cast<float>(sum) * scale, rdiv, bias), 0.0f), peak);
            out[(x0 + x) * dst.step] = static_cast<T>(static_cast<int>(f) << dst.shift);
        }
    }
}


template <typename T>
__global__ void __launch_bounds__(kBoxThreads) box_kernel(DevPlane src, DevPlane dst, int kw, int kh, float scale, float rdiv,
                                                          float bias, int border) {
    __shared__ __align__(16) int colsum[kBoxH][kBoxStride];
    const int rx = kw / 2, ry = kh / 2;
    const int x0 = blockIdx.x * kBoxW, y0 = blockIdx.y * kBoxH;
    const int tid = threadIdx.x;
    const int sx = tid < kBoxW + kw - 1 ? border_index_dev(x0 - rx + tid, src.width, border) : -1;
    if (sx < 0) {
        // Past the tile's columns, or a column of the zero border: sums of zeros.
        for (int q = 0; q < kBoxH; ++q) colsum[q][tid] = 0;
    } else if (y0 - ry >= 0 && y0 + kBoxH + ry < src.height) {
        // The walk reads rows y0 - ry .. y0 + kBoxH + ry (the last row's update is not used), all
        // inside the plane: two row pointers moved by the pitch, loads in batches of kBoxBatch all
        // issued before any is used, so that a batch costs one memory latency, not kBoxBatch.
        const long long pitch = src.pitch / static_cast<long long>(sizeof(T));
        const T* enter = reinterpret_cast<const T*>(src.data + static_cast<long long>(y0 - ry) * src.pitch) + sx * src.step;
        const T* leave = enter;
        int s = 0, j = 0;
        for (; j + kBoxBatch <= kh; j += kBoxBatch, enter += kBoxBatch * pitch) {
            int v[kBoxBatch];
#pragma unroll
            for (int u = 0; u < kBoxBatch; ++u) v[u] = __ldg(enter + u * pitch);
#pragma unroll
            for (int u = 0; u < kBoxBatch; ++u) s += v[u] >> src.shift;
        }
        for (; j < kh; ++j, enter += pitch) s += __ldg(enter) >> src.shift;
        for (int q0 = 0; q0 < kBoxH; q0 += kBoxBatch, enter += kBoxBatch * pitch, leave += kBoxBatch * pitch) {
            int in[kBoxBatch], out[kBoxBatch];
#pragma unroll
            for (int u = 0; u < kBoxBatch; ++u) in[u] = __ldg(enter + u * pitch), out[u] = __ldg(leave + u * pitch);
#pragma unroll
            for (int u = 0; u < kBoxBatch; ++u) {
                colsum[q0 + u][tid] = s;
                s += (in[u] >> src.shift) - (out[u] >> src.shift);
            }
        }
    } else {
        // Near the top or bottom edge: each row through the border rule, in batches too (these
        // blocks are few, but a walk of single loads made them the slowest of the grid).
        auto at = [&](int y) {
            const int sy = border_index_dev(y, src.height, border);
            return sy < 0 ? 0 : __ldg(reinterpret_cast<const T*>(src.data + sy * src.pitch) + sx * src.step) >> src.shift;
        };
        constexpr int kEdgeBatch = 8;  // 16 here took the kernel from 40 to 70 registers
        int s = 0;
        for (int j0 = -ry; j0 <= ry; j0 += kEdgeBatch) {
            int v[kEdgeBatch];
#pragma unroll
            for (int u = 0; u < kEdgeBatch; ++u) v[u] = j0 + u <= ry ? at(y0 + j0 + u) : 0;
#pragma unroll
            for (int u = 0; u < kEdgeBatch; ++u) s += v[u];
        }
        for (int q0 = 0; q0 < kBoxH; q0 += kEdgeBatch) {
            int in[kEdgeBatch], out[kEdgeBatch];
#pragma unroll
            for (int u = 0; u < kEdgeBatch; ++u) in[u] = at(y0 + q0 + u + ry + 1), out[u] = at(y0 + q0 + u - ry);
#pragma unroll
            for (int u = 0; u < kEdgeBatch; ++u) {
                colsum[q0 + u][tid] = s;
                s += in[u] - out[u];
            }
        }
    }
    __syncthreads();
    box_across<T>(colsum, dst, x0, y0, kw, scale, rdiv, bias);
}

// The walk down from the staged tile (see the header comment). Tile: kBoxH + kh - 1 rows of
// kBoxW + 2 pad bytes (pad: the radius rounded up to 16, so that every 16-byte unit is aligned),
// after the column sums in shared memory.
__global__ void __launch_bounds__(kBoxThreads) box_staged_kernel(DevPlane src, DevPlane dst, int kw, int kh, int pad, float scale,
                                                                 float rdiv, float bias, int border) {
    extern __shared__ __align__(16) uint8_t smem[];
    auto colsum = reinterpret_cast<int (*)[kBoxStride]>(smem);
    uint8_t* tile = smem + sizeof(int) * kBoxH * kBoxStride;
    const int rx = kw / 2, ry = kh / 2, cols = kBoxW + 2 * pad;
    const int x0 = blockIdx.x * kBoxW, y0 = blockIdx.y * kBoxH;
    imma::stage_tile<kBoxThreads>(tile, cols, src, x0 - pad, y0 - ry, kBoxH + kh - 1, cols, border);
    __syncthreads();
    const int tid = threadIdx.x;
    if (tid < kBoxW + kw - 1) {
        const uint8_t* col = tile + pad - rx + tid;  // tile row 0 is plane row y0 - ry
        int s = 0;
        for (int j = 0; j < kh; ++j) s += col[j * cols];
        for (int q = 0; q < kBoxH; ++q) {
            colsum[q][tid] = s;
            if (q + 1 < kBoxH) s += col[(q + kh) * cols] - col[q * cols];
        }
    } else {
        for (int q = 0; q < kBoxH; ++q) colsum[q][tid] = 0;  // summed into totals past the outputs only
    }
    __syncthreads();
    box_across<uint8_t>(colsum, dst, x0, y0, kw, scale, rdiv, bias);
}

bool uniform(const std::vector<int>& v) {
    for (int x : v)
        if (x != v[0]) return false;
    return true;
}

// Shared memory of box_staged_kernel: the column sums, then the tile.
size_t staged_bytes(int kh, int pad) {
    return sizeof(int) * kBoxH * kBoxStride + static_cast<size_t>(kBoxH + kh - 1) * (kBoxW + 2 * pad);
}

}  // namespace

// Running sums are exact only while the window sum stays below 2^24 (127x127 x 1023 does).
bool is_box(const ConvolveOp& op) {
    return op.separable() && uniform(op.row) && uniform(op.col) && std::abs(static_cast<long long>(op.row[0]) * op.col[0]) == 1;
}

namespace {

// The window sum times the one tap value (row tap x column tap) is the 2D sum exactly.
float box_scale(const ConvolveOp& op) { return static_cast<float>(static_cast<long long>(op.row[0]) * op.col[0]); }
int box_pad(const ConvolveOp& op) { return (op.kw / 2 + 15) / 16 * 16; }
dim3 box_grid(const Launch& l) { return dim3((l.dst.width + kBoxW - 1) / kBoxW, (l.dst.height + kBoxH - 1) / kBoxH); }

}  // namespace

bool box_staged_takes(const ConvolveOp& op, const Launch& l) {
    if (!is_box(op) || l.src.bytes_per_sample != 1 || l.src.shift != 0 || !byte_rows_16(l.src)) return false;
    // The device is asked only for planes the staged kernel could take.
    const DeviceLimits d = device_limits();
    return d.major >= 8 && staged_bytes(op.kh, box_pad(op)) <= static_cast<size_t>(d.optin_smem);
}

void box_staged(const ConvolveOp& op, const Launch& l) {
    static std::once_flag raised;
    std::call_once(raised, [] { allow_optin_shared_memory(reinterpret_cast<const void*>(box_staged_kernel)); });
    const int pad = box_pad(op);
    box_staged_kernel<<<box_grid(l), kBoxThreads, staged_bytes(op.kh, pad), l.stream>>>(
        to_dev(l.src), to_dev(l.dst), op.kw, op.kh, pad, box_scale(op), op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("box_staged_kernel");
}

void box_walk(const ConvolveOp& op, const Launch& l) {
    const int border = border_mode(l.border);
    if (l.src.bytes_per_sample == 1)
        box_kernel<uint8_t><<<box_grid(l), kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, box_scale(op),
                                                                      op.rdiv, op.bias, border);
    else
        box_kernel<uint16_t><<<box_grid(l), kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, box_scale(op),
                                                                       op.rdiv, op.bias, border);
    VF_CUDA_CHECK_LAUNCH("box_kernel");
}

}  // namespace vf::cuda
