// gradient-tile: both 3x3 sums and the magnitude through a shared-memory tile, 4 x 2 outputs per
// thread (wide_tile.cuh). Takes every plane: interleaved chroma, 16-bit samples, odd pitches.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/gradient_taps.cuh"
#include "kernels/cuda/device/wide_tile.cuh"

namespace vf::cuda {
namespace {

// Both sums and the magnitude, 4 x 2 outputs per thread with 4-byte loads and stores
// (wide_tile.cuh).
template <typename T, bool kVec>
__global__ void __launch_bounds__(wide::kTX* wide::kTY) gradient_wide_kernel(DevPlane src, DevPlane dst, GradTaps g, int border) {
    constexpr int rows = wide::kTileH + 2;
    __shared__ __align__(16) float tile[rows * wide::kCols];
    const int x0 = blockIdx.x * wide::kTileW, y0 = blockIdx.y * wide::kTileH;
    wide::load<T, kVec>(tile, src, x0, y0 - 1, rows, border);
    __syncthreads();
    const int ty0 = threadIdx.y * wide::kPY;
    float a[wide::kPY][4] = {}, b[wide::kPY][4] = {};
#pragma unroll
    for (int t = 0; t < wide::kPY + 2; ++t) {
        float s[12];
        wide::segment(tile, ty0 + t, s);
#pragma unroll
        for (int q = 0; q < wide::kPY; ++q) {
            const int j = t - q;
            if (j < 0 || j >= 3) continue;
#pragma unroll
            for (int i = 0; i < 3; ++i)
#pragma unroll
                for (int p = 0; p < 4; ++p) {
                    a[q][p] = fmaf(g.gx[j * 3 + i], s[p + i + 3], a[q][p]);
                    b[q][p] = fmaf(g.gy[j * 3 + i], s[p + i + 3], b[q][p]);
                }
        }
    }
    wide::store_block<T, kVec>(dst, x0, y0, [&](int q, int p) { return g.magnitude(a[q][p], b[q][p]); });
}

template <typename T, bool kVec>
void launch_gradient_wide(const GradTaps& g, const Launch& l, int border) {
    gradient_wide_kernel<T, kVec><<<wide::grid(l.dst), wide::block(), 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), g, border);
    VF_CUDA_CHECK_LAUNCH("gradient_wide_kernel");
}

}  // namespace

void gradient_tile(const GradientOp& op, const Launch& l) {
    const GradTaps g = grad_taps(op);
    const int border = border_mode(l.border);
    const bool vec = wide::vector_ok(l.src) && wide::vector_ok(l.dst);
    if (l.src.bytes_per_sample == 1) {
        if (vec) launch_gradient_wide<uint8_t, true>(g, l, border);
        else launch_gradient_wide<uint8_t, false>(g, l, border);
    } else {
        if (vec) launch_gradient_wide<uint16_t, true>(g, l, border);
        else launch_gradient_wide<uint16_t, false>(g, l, border);
    }
}

}  // namespace vf::cuda
