// The plain, obviously correct implementation of every plane operation: one pixel at a time,
// border lookups on every tap, 64-bit or double accumulation. It is the oracle that the fast
// CPU path and the CUDA kernels are tested against; it is never used to process video.
#pragma once

#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf {

void reference_apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst);
// Output rows y_begin .. y_end - 1 only (the whole source is read), so the tests can share a large
// case among threads; every row computed exactly as reference_apply computes it.
void reference_apply_rows(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y_begin, int y_end);

// Shared final steps, so every implementation rounds the same way.
inline int clamp_to_peak(float v, int peak) {
    if (!(v > 0.0f)) return 0;  // also maps NaN to 0
    if (v >= static_cast<float>(peak)) return peak;
    return static_cast<int>(v);  // truncation, as FFmpeg's (int) cast
}
inline int finish_convolve(float sum, float rdiv, float bias, int peak) {
    return clamp_to_peak(sum * rdiv + bias + 0.5f, peak);
}
// A whole-number sum divided by `divisor` (> 0), rounded down, clamped: FFmpeg's avgblur.
inline int finish_floor(long long sum, int divisor, int peak) {
    if (sum <= 0) return 0;  // floor of a negative mean clamps to 0 either way
    const long long q = sum / divisor;
    return q >= peak ? peak : static_cast<int>(q);
}

}  // namespace vf
