// Finishing a 16-byte strip (strip16_rows.cuh): a convolution's integer finish (FixedFinish), a
// gradient's magnitude as an integer square root, and the store of the 16 outputs.
#pragma once

#include <cstdint>

#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/strip16_loads.cuh"
#include "kernels/fixed_finish.hpp"

namespace vf::cuda::strip16 {

// Finishes: the output before saturation to 0..255 from a strip's kSums whole-number sums.

// A convolution's finish (FixedFinish): floor((s * m + c) / 2^(32 - shift)), one 64-bit multiply-
// add, and a funnel shift unless shift is 0 (|rdiv| < 1/4: most kernels).
template <bool kShift>
struct IntegerFinish {
    static constexpr int kSums = 1;
    int m, shift;
    long long c;
    __device__ __forceinline__ int operator()(const int (&s)[1]) const {
        const unsigned long long t = static_cast<unsigned long long>(static_cast<long long>(s[0]) * m + c);
        if (!kShift) return static_cast<int>(t >> 32);
        return static_cast<int>(__funnelshift_l(static_cast<uint32_t>(t), static_cast<uint32_t>(t >> 32), shift));
    }
};

// A gradient's magnitude when divisor, scale and delta are 1, 1 and 0 (Sobel's and Prewitt's
// defaults, |Laplacian|): the float finish is then trunc(sqrtf(gx^2 + gy^2)) clamped to 255, and
// for n = gx^2 + gy^2 below 255^2 that is the integer square root of n (sqrtf of an integer
// below 2^16 that is not a square stays more than 1/512 below the next integer, far above its
// rounding), so: an approximate root, truncated, raised by one where it fell short of a square
// (PTX's bound on sqrt.approx allows that; on the GPUs measured it never happened: the tests pass without
// the correction, |Laplacian|'s perfect squares included).
// The host (gradient_integer_ok) makes sure n fits 31 bits.
struct MagnitudeFinish {
    static constexpr int kSums = 2;
    __device__ __forceinline__ int operator()(const int (&s)[2]) const {
        const int n = min(s[0] * s[0] + s[1] * s[1], 255 * 255);
        float r;
        asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(__fsub_rn(__int_as_float(0x4B000000 | n), 8388608.0f)));
        int k = __float_as_int(__fadd_rz(r, 8388608.0f)) & 0xFFFF;  // trunc(r): r < 256
        if ((k + 1) * (k + 1) <= n) ++k;
        return k;
    }
};

// Finishes the strip's 16 sums (acc[c][p]: sum c of output p) and stores them at (x, y): one
// 16-byte store, or byte by byte for the last strip of a row that ends past the plane.
template <bool kCheckX, typename Finish>
__device__ __forceinline__ void finish_store(const DevPlane& dst, int x, int y, const int (&acc)[Finish::kSums][kV],
                                             const Finish& finish) {
    constexpr int S = Finish::kSums;
    int v[kV];
#pragma unroll
    for (int p = 0; p < kV; ++p) {
        int sums[S];
#pragma unroll
        for (int c = 0; c < S; ++c) sums[c] = acc[c][p];
        v[p] = finish(sums);
    }
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) o[i] = pack4_saturated(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
    uint8_t* out = dst.data + static_cast<long long>(y) * dst.pitch;
    if (!kCheckX || x + kV <= dst.width) {
        *reinterpret_cast<uint4*>(out + x) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
#pragma unroll
        for (int p = 0; p < kV; ++p)
            if (x + p < dst.width) out[x + p] = static_cast<uint8_t>(o[p / 4] >> (8 * (p % 4)));
    }
}

}  // namespace vf::cuda::strip16
