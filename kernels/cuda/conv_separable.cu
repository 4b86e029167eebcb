// Separable (rank-1) convolution fused in one kernel: the input tile with its halo is staged in
// shared memory, the row pass writes (tile rows + halo) x 32 intermediate sums back to shared
// memory, and the column pass reads them with 8 outputs per thread. One read of the input and
// one write of the output: no intermediate image in device memory. Taps in constant memory.
//
// Both passes are register-blocked the same way: a thread keeps 8 outputs and a window of 15
// samples in registers and runs the taps in zero-padded chunks of 8, so each tap costs one
// shared-memory read per 8 multiply-adds (the row pass once spent a shared-memory read and a
// constant load per multiply-add: measured 65-80% of the issue slots busy).
//
// Box filters (every tap equal) take their own kernel: running sums, O(1) work per pixel.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/op_cache.hpp"
#include "kernels/cuda/tile_loader.cuh"

namespace vf::cuda {
namespace {

constexpr int kTX = kBlockX, kTY = kBlockY, kPY = 8;
constexpr int kChunk = 8;
constexpr int kSeg = 8;                // row-pass outputs per thread, across
constexpr int kMidStride = kTX + 1;    // odd: a warp's lanes on 32 rows hit 32 banks
constexpr int kArenaFloats = 16000;

__constant__ float c_sep_taps[kArenaFloats];

int padded(int k) { return (k + kChunk - 1) / kChunk * kChunk; }

// Uploads row taps then column taps (each zero-padded to a multiple of kChunk) once; returns
// the offset of the row taps (the column taps follow them).
int taps_offset(const ConvolveOp& op) {
    static OpCache<int> cache;
    static int used = 0;  // guarded by the cache's lock, held while make() runs
    return cache.get(op, 0, [&] {
        std::vector<float> taps;
        for (int i = 0; i < padded(op.kw); ++i) taps.push_back(i < op.kw ? static_cast<float>(op.row[i]) : 0.0f);
        for (int j = 0; j < padded(op.kh); ++j) taps.push_back(j < op.kh ? static_cast<float>(op.col[j]) : 0.0f);
        if (used + static_cast<int>(taps.size()) > kArenaFloats)
            throw Error(ErrorCategory::Device, "too many distinct separable filters for constant memory");
        VF_CUDA_CHECK(cudaMemcpyToSymbol(c_sep_taps, taps.data(), taps.size() * sizeof(float), used * sizeof(float)));
        auto off = std::make_unique<int>(used);
        used += static_cast<int>(taps.size());
        return off;
    });
}

// kwp, khp: kw, kh rounded up to kChunk. The tile is kTX + kwp - 1 columns wide (the columns
// past kTX + kw - 1 meet only zero taps, but are loaded so that they are finite).
template <typename T>
__global__ void __launch_bounds__(kTX* kTY) separable_kernel(DevPlane src, DevPlane dst, int off, int kw, int kwp, int kh,
                                                             int khp, float rdiv, float bias, int border) {
    extern __shared__ float smem[];
    const int cols = kTX + kwp - 1, rows = kTY * kPY + khp - 1;
    float* in = smem;                 // rows x cols
    float* mid = smem + rows * cols;  // rows x kMidStride
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    const int tid = threadIdx.y * kTX + threadIdx.x;
    load_tile<T>(in, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    // Row pass: whole-number taps and samples, so these sums are exact in float (< 2^24). Item
    // i: lane i % 32 takes row (i / 128) * 32 + i % 32, segment (i / 32) % 4 of 8 outputs (cols
    // is odd, so the 32 rows of a warp fall in 32 banks).
    constexpr int kSegs = kTX / kSeg;
    const int items = (rows + 31) / 32 * 32 * kSegs;
    for (int item = tid; item < items; item += kTX * kTY) {
        const int r = item / (32 * kSegs) * 32 + item % 32, seg = item / 32 % kSegs;
        if (r >= rows) continue;
        const float* p = in + r * cols + seg * kSeg;
        float acc[kSeg] = {};
        for (int ib = 0; ib < kwp; ib += kChunk) {
            float v[kChunk + kSeg - 1];
#pragma unroll
            for (int t = 0; t < kChunk + kSeg - 1; ++t) v[t] = p[ib + t];
#pragma unroll
            for (int ii = 0; ii < kChunk; ++ii) {
                const float k = c_sep_taps[off + ib + ii];
#pragma unroll
                for (int q = 0; q < kSeg; ++q) acc[q] = fmaf(k, v[ii + q], acc[q]);
            }
        }
#pragma unroll
        for (int q = 0; q < kSeg; ++q) mid[r * kMidStride + seg * kSeg + q] = acc[q];
    }
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    for (int jb = 0; jb < khp; jb += kChunk) {
        float v[kChunk + kPY - 1];
#pragma unroll
        for (int t = 0; t < kChunk + kPY - 1; ++t) v[t] = mid[(ty0 + jb + t) * kMidStride + tx];
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
            const float k = c_sep_taps[off + kwp + jb + jj];
#pragma unroll
            for (int q = 0; q < kPY; ++q) acc[q] = fmaf(k, v[jj + q], acc[q]);
        }
    }
    const int x = x0 + tx;
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kPY; ++q) {
        const int y = y0 + ty0 + q;
        if (y < dst.height) store_sample<T>(dst, x, y, finish_convolve(acc[q], rdiv, bias));
    }
}

// Box (every tap equal): O(1) work per pixel whatever the size. A block of 256 threads (8
// warps) makes a kBoxW x kBoxH tile of outputs in two phases:
// - down: thread c owns input column x0 - rx + c (kBoxW + kw - 1 <= 256 columns) and walks down
//   the tile's rows keeping the sum of the kh samples around each one (add the sample entering
//   the window, subtract the one leaving: two loads a row, coalesced across the warp), writing
//   these column sums to shared memory;
// - across: a warp takes a row of column sums at a time, makes their running total (8 per lane,
//   then a shuffle scan across the lanes) and each output is the difference of two totals.
// Integer sums: exact (127 x 127 x 1023 < 2^31, and < 2^24 so the float conversion is exact).
// Measured against the designs before it (docs/benchmarks.md): a 64x64 float tile staged with
// its halo (most of its time in the staging), and 64-row tiles with a sliding window across (too
// few blocks at 1080p and a long serial walk per thread).
constexpr int kBoxW = 128, kBoxH = 32, kBoxThreads = 256, kBoxStride = 256;
constexpr int kBoxBatch = 16;  // loads issued together in the walk down
static_assert(kBoxH % kBoxBatch == 0, "whole batches");
static_assert(kBoxW + kMaxTiledKernel - 1 <= kBoxThreads, "one thread per input column of the tile");

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

bool uniform(const std::vector<int>& v) {
    for (int x : v)
        if (x != v[0]) return false;
    return true;
}

void launch_box(const ConvolveOp& op, const Launch& l) {
    const dim3 grid((l.dst.width + kBoxW - 1) / kBoxW, (l.dst.height + kBoxH - 1) / kBoxH);
    const int border = border_mode(l.border);
    // The window sum times the one tap value (row tap x column tap) is the 2D sum exactly.
    const float scale = static_cast<float>(static_cast<long long>(op.row[0]) * op.col[0]);
    if (l.src.bytes_per_sample == 1)
        box_kernel<uint8_t><<<grid, kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, scale,
                                                                   op.rdiv, op.bias, border);
    else
        box_kernel<uint16_t><<<grid, kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, scale,
                                                                    op.rdiv, op.bias, border);
    VF_CUDA_CHECK_LAUNCH("box_kernel");
}

}  // namespace

void conv_separable(const ConvolveOp& op, const Launch& l) {
    if (!op.separable()) throw Error(ErrorCategory::Internal, "conv_separable on a kernel without a rank-1 factorisation");
    // Running sums are exact only while the window sum stays below 2^24 (127x127 x 1023 does).
    if (uniform(op.row) && uniform(op.col) && std::abs(static_cast<long long>(op.row[0]) * op.col[0]) == 1) return launch_box(op, l);
    if (try_separable_imma(op, l)) return;
    conv_separable_f32(op, l);
}

void conv_separable_f32(const ConvolveOp& op, const Launch& l) {
    if (!op.separable()) throw Error(ErrorCategory::Internal, "conv_separable on a kernel without a rank-1 factorisation");
    const int off = taps_offset(op);
    const int kwp = padded(op.kw), khp = padded(op.kh);
    const int rows = kTY * kPY + khp - 1;
    const size_t smem = static_cast<size_t>(rows) * (kTX + kwp - 1 + kMidStride) * sizeof(float);
    static std::once_flag raised;
    std::call_once(raised, [] {
        VF_CUDA_CHECK(cudaFuncSetAttribute(separable_kernel<uint8_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
        VF_CUDA_CHECK(cudaFuncSetAttribute(separable_kernel<uint16_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    });
    const dim3 block(kTX, kTY), grid((l.dst.width + kTX - 1) / kTX, (l.dst.height + kTY * kPY - 1) / (kTY * kPY));
    const int border = border_mode(l.border);
    if (l.src.bytes_per_sample == 1)
        separable_kernel<uint8_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, kwp, op.kh,
                                                                    khp, op.rdiv, op.bias, border);
    else
        separable_kernel<uint16_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, kwp, op.kh,
                                                                     khp, op.rdiv, op.bias, border);
    VF_CUDA_CHECK_LAUNCH("separable_kernel");
}

}  // namespace vf::cuda
