// box-walk: box filters by running sums, the walk down reading the plane directly, two loads a
// row in batches issued together (box_sums.cuh says how both box variants work). Takes every box.
#include <cstdlib>

#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/box_sums.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void __launch_bounds__(kBoxThreads) box_kernel(DevPlane src, DevPlane dst, int kw, int kh, float scale, float rdiv,
                                                          float bias, int divisor, int border) {
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
    box_across<T>(colsum, dst, x0, y0, kw, scale, rdiv, bias, divisor);
}

bool uniform(const std::vector<int>& v) {
    for (int x : v)
        if (x != v[0]) return false;
    return true;
}

}  // namespace

// Running sums are exact only while the window sum stays below 2^24 (127x127 x 1023 does).
bool is_box(const ConvolveOp& op) {
    return op.separable() && uniform(op.row) && uniform(op.col) && std::abs(static_cast<long long>(op.row[0]) * op.col[0]) == 1;
}

void box_walk(const ConvolveOp& op, const Launch& l) {
    const int border = border_mode(l.border);
    if (l.src.bytes_per_sample == 1)
        box_kernel<uint8_t><<<box_grid(l), kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, box_scale(op),
                                                                      op.rdiv, op.bias, op.divisor, border);
    else
        box_kernel<uint16_t><<<box_grid(l), kBoxThreads, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op.kw, op.kh, box_scale(op),
                                                                       op.rdiv, op.bias, op.divisor, border);
    VF_CUDA_CHECK_LAUNCH("box_kernel");
}

}  // namespace vf::cuda
