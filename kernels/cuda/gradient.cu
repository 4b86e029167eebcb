// Sobel, Prewitt, Scharr (and |Laplacian|): both 3x3 sums and the magnitude in one pass. Four
// variants (rows of the dispatch table, kernels/cuda/dispatch_table.cpp): 16 outputs per thread
// with an integer magnitude (strip16_dp4a.cuh); 8 outputs per thread without shared memory, DP4A
// sums for byte taps (strip_dp4a.cuh) or FP32 ones (strip_rows.cuh); a shared-memory tile with
// 4 x 2 outputs per thread. Rounds exactly as the CPU path: the sums are whole numbers, and every
// later step is an IEEE operation without contraction.
#include <cmath>

#include "kernels/cuda/byte_plane.cuh"
#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/strip16_dp4a.cuh"
#include "kernels/cuda/strip_dp4a.cuh"
#include "kernels/cuda/strip_rows.cuh"
#include "kernels/cuda/wide_tile.cuh"

namespace vf::cuda {
namespace {

struct GradTaps {
    float gx[9], gy[9];
    float divisor, scale, delta;
    // A power-of-two divisor (1 for Sobel and Prewitt, 256 for Scharr) is applied as a
    // multiplication by its inverse: it rounds exactly as the division does, at full rate.
    float inverse;
    bool power_of_two;

    // The output value before clamping, from the two sums: the CPU's operations one by one.
    __device__ __forceinline__ float magnitude(float a, float b) const {
        const float sa = power_of_two ? __fmul_rn(a, inverse) : __fdiv_rn(a, divisor);
        const float sb = power_of_two ? __fmul_rn(b, inverse) : __fdiv_rn(b, divisor);
        const float m = __fsqrt_rn(__fadd_rn(__fmul_rn(sa, sa), __fmul_rn(sb, sb)));
        return __fadd_rn(__fmul_rn(m, scale), delta);
    }
};

// Both sums for strip::strip_kernel.
struct StripGradient {
    static constexpr int kSums = 2;
    GradTaps g;
    __host__ __device__ __forceinline__ float tap(int c, int j, int i) const { return c == 0 ? g.gx[j * 3 + i] : g.gy[j * 3 + i]; }
    __device__ __forceinline__ float finish(const float (&sum)[2]) const { return g.magnitude(sum[0], sum[1]); }
};

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

GradTaps grad_taps(const GradientOp& op) {
    GradTaps g;
    for (int i = 0; i < 9; ++i) {
        g.gx[i] = static_cast<float>(op.gx[i]);
        g.gy[i] = static_cast<float>(op.gy[i]);
    }
    g.divisor = op.divisor;
    g.scale = op.scale;
    g.delta = op.delta;
    int exponent = 0;
    g.power_of_two = g.divisor > 0 && std::frexp(g.divisor, &exponent) == 0.5f;
    g.inverse = 1.0f / g.divisor;
    return g;
}

auto strip16_taps(const GradTaps& g) {
    return [g](int c, int j, int i) { return c == 0 ? g.gx[j * 3 + i] : g.gy[j * 3 + i]; };
}

}  // namespace

bool gradient_strip16_takes(const GradientOp& op, const Launch& l) {
    const GradTaps g = grad_taps(op);
    return l.src.bytes_per_sample == 1 && l.dst.peak() == 255 && byte_rows_16(l.src) && byte_rows_16(l.dst) &&
           strip16::gradient_integer_ok(strip16_taps(g), g.divisor, g.scale, g.delta);
}

void gradient_strip16(const GradientOp& op, const Launch& l) {
    strip16::launch_gradient(l.src, l.dst, strip16_taps(grad_taps(op)), border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (gradient)");
}

bool gradient_dp4a_takes(const GradientOp& op, const Launch& l) {
    return strip::usable(l.src) && strip::usable(l.dst) && l.src.bytes_per_sample == 1 && strip::byte_taps<3>(StripGradient{grad_taps(op)});
}

// 1 row per thread (2 rows measured the same at 4K and 4% slower at 1080p).
void gradient_dp4a(const GradientOp& op, const Launch& l) {
    strip::launch_dp4a<3, 1>(l.src, l.dst, StripGradient{grad_taps(op)}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("dp4a_kernel (gradient)");
}

bool gradient_strip_takes(const GradientOp&, const Launch& l) { return strip::usable(l.src) && strip::usable(l.dst); }

void gradient_strip(const GradientOp& op, const Launch& l) {
    strip::launch<1>(l.src, l.dst, StripGradient{grad_taps(op)}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip_kernel (gradient)");
}

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
