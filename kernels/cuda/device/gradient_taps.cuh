// The taps and the finish every gradient variant shares: both 3x3 sums and the magnitude, rounded
// exactly as the CPU path rounds (the sums are whole numbers, and every later step is an IEEE
// operation without contraction).
#pragma once

#include <cmath>

#include "kernels/plan.hpp"

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

inline GradTaps grad_taps(const GradientOp& op) {
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

inline auto strip16_taps(const GradTaps& g) {
    return [g](int c, int j, int i) { return c == 0 ? g.gx[j * 3 + i] : g.gy[j * 3 + i]; };
}

}  // namespace
}  // namespace vf::cuda
