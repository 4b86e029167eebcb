// Separable (rank-1) convolution fused in one kernel: the input tile with its halo is staged in
// shared memory, the row pass writes (tile rows + halo) x 32 intermediate sums back to shared
// memory, and the column pass reads them with 8 outputs per thread. One read of the input and
// one write of the output: no intermediate image in device memory. Taps in constant memory.
//
// Both passes are register-blocked the same way: a thread keeps 8 outputs and a window of 15
// samples in registers and runs the taps in zero-padded chunks of 8, so each tap costs one
// shared-memory read per 8 multiply-adds, not a shared-memory read and a constant load for each,
// which would keep the issue slots busy with loads.
//
// Box filters (every tap equal) take their own kernels (box_walk.cu, box_staged.cu): running sums, O(1) work per
// pixel.
#include <memory>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/tile_loader.cuh"

namespace vf::cuda {
namespace {

constexpr int kTX = kBlockX, kTY = kBlockY, kPY = 8;
constexpr int kChunk = 8;
constexpr int kSeg = 8;                // row-pass outputs per thread, across
constexpr int kMidStride = kTX + 1;    // odd: a warp's lanes on 32 rows hit 32 banks
constexpr int kArenaFloats = 16000;

__constant__ float c_sep_taps[kArenaFloats];

int padded(int k) { return (k + kChunk - 1) / kChunk * kChunk; }

// The row taps then the column taps (each zero-padded to a multiple of kChunk) in the arena; the
// column taps follow the row taps.
struct SeparableState : RowState {
    ConstantSlot slot;
};

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

}  // namespace

RowStatePtr separable_f32_prepare(const ConvolveOp& op, DeviceContext& ctx) {
    if (!op.separable()) throw Error(ErrorCategory::Internal, "separable-f32 on a kernel without a rank-1 factorisation");
    for (const void* f : {reinterpret_cast<const void*>(separable_kernel<uint8_t>), reinterpret_cast<const void*>(separable_kernel<uint16_t>)})
        ctx.raise_shared_memory(f, 200 * 1024);
    std::vector<float> taps;
    for (int i = 0; i < padded(op.kw); ++i) taps.push_back(i < op.kw ? static_cast<float>(op.row[i]) : 0.0f);
    for (int j = 0; j < padded(op.kh); ++j) taps.push_back(j < op.kh ? static_cast<float>(op.col[j]) : 0.0f);
    auto s = std::make_unique<SeparableState>();
    s->slot = ctx.constant_slot(reinterpret_cast<const void*>(&c_sep_taps), kArenaFloats, taps);
    if (!s->slot)
        throw Error(ErrorCategory::Device, "too many distinct separable filters in use on this GPU at once for constant memory");
    s->device_bytes = s->slot.floats() * 4;
    return s;
}

void conv_separable_f32(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const int off = state_as<SeparableState>(state).slot.offset();
    const int kwp = padded(op.kw), khp = padded(op.kh);
    const int rows = kTY * kPY + khp - 1;
    const size_t smem = static_cast<size_t>(rows) * (kTX + kwp - 1 + kMidStride) * sizeof(float);
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
