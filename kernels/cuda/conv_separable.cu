// Separable (rank-1) convolution fused in one kernel: the input tile with its halo is staged in
// shared memory, the row pass writes (tile rows + halo) x 32 intermediate sums back to shared
// memory, and the column pass reads them with 8 outputs per thread. One read of the input and
// one write of the output: no intermediate image in device memory. Taps in constant memory.
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
constexpr int kArenaFloats = 16000;

__constant__ float c_sep_taps[kArenaFloats];

// Uploads row taps then column taps (column padded to a multiple of kChunk) once; returns offset.
int taps_offset(const ConvolveOp& op) {
    static OpCache<int> cache;
    static int used = 0;  // guarded by the cache's lock, held while make() runs
    return cache.get(op, 0, [&] {
        const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
        std::vector<float> taps(op.row.begin(), op.row.end());
        for (int j = 0; j < khp; ++j) taps.push_back(j < op.kh ? static_cast<float>(op.col[j]) : 0.0f);
        if (used + static_cast<int>(taps.size()) > kArenaFloats)
            throw Error(ErrorCategory::Device, "too many distinct separable filters for constant memory");
        VF_CUDA_CHECK(cudaMemcpyToSymbol(c_sep_taps, taps.data(), taps.size() * sizeof(float), used * sizeof(float)));
        auto off = std::make_unique<int>(used);
        used += static_cast<int>(taps.size());
        return off;
    });
}

template <typename T>
__global__ void __launch_bounds__(kTX* kTY) separable_kernel(DevPlane src, DevPlane dst, int off, int kw, int kh,
                                                             int khp, float rdiv, float bias, int border) {
    extern __shared__ float smem[];
    const int cols = kTX + kw - 1, rows = kTY * kPY + khp - 1;
    float* in = smem;                 // rows x cols
    float* mid = smem + rows * cols;  // rows x kTX
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    const int tid = threadIdx.y * kTX + threadIdx.x;
    load_tile<T>(in, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    // Row pass: whole-number taps and samples, so these sums are exact in float (< 2^24).
    for (int idx = tid; idx < rows * kTX; idx += kTX * kTY) {
        const int r = idx / kTX, c = idx - r * kTX;
        const float* p = in + r * cols + c;
        float s = 0.0f;
        for (int i = 0; i < kw; ++i) s = fmaf(c_sep_taps[off + i], p[i], s);
        mid[idx] = s;
    }
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    for (int jb = 0; jb < khp; jb += kChunk) {
        float v[kChunk + kPY - 1];
#pragma unroll
        for (int t = 0; t < kChunk + kPY - 1; ++t) v[t] = mid[(ty0 + jb + t) * kTX + tx];
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
            const float k = c_sep_taps[off + kw + jb + jj];
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

// Box (every tap equal): running sums, O(1) work per pixel whatever the size. A 64x64 tile and
// its halo are staged; each column is summed down in place (a window of kh rows, moved one row
// at a time), then each row segment across; whole numbers below 2^24, so float is exact.
constexpr int kBoxTile = 64;

template <typename T>
__global__ void __launch_bounds__(kTX* kTY) box_kernel(DevPlane src, DevPlane dst, int kw, int kh, float scale, float rdiv,
                                                       float bias, int border) {
    extern __shared__ float smem[];
    const int cols = kBoxTile + kw - 1, rows = kBoxTile + kh - 1;
    float* tile = smem;                 // rows x cols, then column sums in rows [0, kBoxTile)
    float* out = smem + rows * cols;    // kBoxTile x kBoxTile results
    const int x0 = blockIdx.x * kBoxTile, y0 = blockIdx.y * kBoxTile;
    load_tile<T>(tile, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    const int tid = threadIdx.y * kTX + threadIdx.x;
    for (int c = tid; c < cols; c += kTX * kTY) {
        float s = 0.0f;
        for (int r = 0; r < kh; ++r) s += tile[r * cols + c];
        for (int y = 0; y < kBoxTile; ++y) {
            const float v = s;
            if (y + kh < rows) s += tile[(y + kh) * cols + c] - tile[y * cols + c];
            tile[y * cols + c] = v;
        }
    }
    __syncthreads();
    {
        constexpr int kSeg = kBoxTile / 4;  // 64 rows x 4 segments = 256 threads
        const int y = tid / 4, x_begin = (tid % 4) * kSeg;
        const float* v = tile + y * cols;
        float s = 0.0f;
        for (int i = 0; i < kw; ++i) s += v[x_begin + i];
        for (int x = x_begin; x < x_begin + kSeg; ++x) {
            out[y * kBoxTile + x] = s;
            s += v[x + kw] - v[x];
        }
    }
    __syncthreads();
    for (int i = tid; i < kBoxTile * kBoxTile; i += kTX * kTY) {
        const int y = y0 + i / kBoxTile, x = x0 + i % kBoxTile;
        if (x < dst.width && y < dst.height) store_sample<T>(dst, x, y, finish_convolve(out[i] * scale, rdiv, bias));
    }
}

bool uniform(const std::vector<int>& v) {
    for (int x : v)
        if (x != v[0]) return false;
    return true;
}

void launch_box(const ConvolveOp& op, const Launch& l) {
    const size_t smem = (static_cast<size_t>(kBoxTile + op.kh - 1) * (kBoxTile + op.kw - 1) + kBoxTile * kBoxTile) * sizeof(float);
    static std::once_flag raised;
    std::call_once(raised, [] {
        VF_CUDA_CHECK(cudaFuncSetAttribute(box_kernel<uint8_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
        VF_CUDA_CHECK(cudaFuncSetAttribute(box_kernel<uint16_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    });
    const dim3 block(kTX, kTY), grid((l.dst.width + kBoxTile - 1) / kBoxTile, (l.dst.height + kBoxTile - 1) / kBoxTile);
    const int border = border_mode(l.border);
    // The window sum times the one tap value (row tap x column tap) is the 2D sum exactly.
    const float scale = static_cast<float>(static_cast<long long>(op.row[0]) * op.col[0]);
    if (l.src.bytes_per_sample == 1)
        box_kernel<uint8_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, scale, op.rdiv,
                                                              op.bias, border);
    else
        box_kernel<uint16_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, scale, op.rdiv,
                                                               op.bias, border);
    VF_CUDA_CHECK_LAUNCH("box_kernel");
}

}  // namespace

void conv_separable(const ConvolveOp& op, const Launch& l) {
    if (!op.separable()) throw Error(ErrorCategory::Internal, "conv_separable on a kernel without a rank-1 factorisation");
    // Running sums are exact only while the window sum stays below 2^24 (127x127 x 1023 does).
    if (uniform(op.row) && uniform(op.col) && std::abs(static_cast<long long>(op.row[0]) * op.col[0]) == 1) return launch_box(op, l);
    const int off = taps_offset(op);
    const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
    const int rows = kTY * kPY + khp - 1;
    const size_t smem = static_cast<size_t>(rows) * (kTX + op.kw - 1 + kTX) * sizeof(float);
    static std::once_flag raised;
    std::call_once(raised, [] {
        VF_CUDA_CHECK(cudaFuncSetAttribute(separable_kernel<uint8_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
        VF_CUDA_CHECK(cudaFuncSetAttribute(separable_kernel<uint16_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    });
    const dim3 block(kTX, kTY), grid((l.dst.width + kTX - 1) / kTX, (l.dst.height + kTY * kPY - 1) / (kTY * kPY));
    const int border = border_mode(l.border);
    if (l.src.bytes_per_sample == 1)
        separable_kernel<uint8_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh, khp,
                                                                    op.rdiv, op.bias, border);
    else
        separable_kernel<uint16_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh, khp,
                                                                     op.rdiv, op.bias, border);
    VF_CUDA_CHECK_LAUNCH("separable_kernel");
}

}  // namespace vf::cuda
