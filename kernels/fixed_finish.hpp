// The convolution's finish (float sum * rdiv + bias + 0.5, clamped, truncated: finish_convolve)
// as one integer multiply-add and a shift, for kernels whose sums are whole numbers in a known
// range. On the GPU it replaces about nine float instructions per output by two; it is found on
// the host by checking every sum the kernel can produce, so it is exact, not approximately right.
#pragma once

#include <cstdint>
#include <optional>

namespace vf {

// output = clamp(floor((s * m + c) / 2^(32 - shift)), 0, peak) for a whole-number sum s.
struct FixedFinish {
    int32_t m = 0;
    int32_t shift = 0;  // 0..31
    int64_t c = 0;

    int64_t apply(int64_t s, int peak) const;
};

// An m, shift and c for which FixedFinish::apply(s, peak) == finish_convolve(s, rdiv, bias, peak)
// for every whole number s in [smin, smax]; nullopt when none was found (a non-finite or huge
// rdiv or bias, a range of more than 2^23 sums, or no offset that fits every sum).
std::optional<FixedFinish> solve_fixed_finish(float rdiv, float bias, int peak, int64_t smin, int64_t smax);

}  // namespace vf
