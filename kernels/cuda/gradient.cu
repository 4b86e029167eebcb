// Sobel, Prewitt, Scharr (and |Laplacian|): both 3x3 sums and the magnitude in one pass over a
// shared-memory tile, 8 outputs per thread. Rounds exactly as the CPU path: the sums are whole
// numbers, and every later step is an IEEE operation without contraction.
#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/tile_loader.cuh"

namespace vf::cuda {
namespace {

constexpr int kTX = kBlockX, kTY = kBlockY, kPY = 8;

struct GradTaps {
    float gx[9], gy[9];
    float divisor, scale, delta;
};

template <typename T>
__global__ void __launch_bounds__(kTX* kTY) gradient_kernel(DevPlane src, DevPlane dst, GradTaps g, int border) {
    constexpr int cols = kTX + 2, rows = kTY * kPY + 2;
    __shared__ float tile[rows * cols];
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T>(tile, src, x0 - 1, y0 - 1, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float a[kPY] = {}, b[kPY] = {};
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        float v[kPY + 2];
#pragma unroll
        for (int t = 0; t < kPY + 2; ++t) v[t] = tile[(ty0 + t) * cols + tx + i];
#pragma unroll
        for (int j = 0; j < 3; ++j)
#pragma unroll
            for (int q = 0; q < kPY; ++q) {
                a[q] = fmaf(g.gx[j * 3 + i], v[j + q], a[q]);
                b[q] = fmaf(g.gy[j * 3 + i], v[j + q], b[q]);
            }
    }
    const int x = x0 + tx;
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kPY; ++q) {
        const int y = y0 + ty0 + q;
        if (y >= dst.height) break;
        const float sa = __fdiv_rn(a[q], g.divisor), sb = __fdiv_rn(b[q], g.divisor);
        const float m = __fsqrt_rn(__fadd_rn(__fmul_rn(sa, sa), __fmul_rn(sb, sb)));
        store_sample<T>(dst, x, y, __fadd_rn(__fmul_rn(m, g.scale), g.delta));
    }
}

}  // namespace

void gradient(const GradientOp& op, const Launch& l) {
    GradTaps g;
    for (int i = 0; i < 9; ++i) {
        g.gx[i] = static_cast<float>(op.gx[i]);
        g.gy[i] = static_cast<float>(op.gy[i]);
    }
    g.divisor = op.divisor;
    g.scale = op.scale;
    g.delta = op.delta;
    const dim3 block(kTX, kTY), grid((l.dst.width + kTX - 1) / kTX, (l.dst.height + kTY * kPY - 1) / (kTY * kPY));
    const int border = l.border == Border::Mirror ? 0 : (l.border == Border::Replicate ? 1 : 2);
    if (l.src.bytes_per_sample == 1)
        gradient_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), g, border);
    else
        gradient_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), g, border);
    VF_CUDA_CHECK_LAUNCH("gradient_kernel");
}

}  // namespace vf::cuda
