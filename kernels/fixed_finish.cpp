#include "kernels/fixed_finish.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference.hpp"

namespace vf {

int64_t FixedFinish::apply(int64_t s, int peak) const {
    // As the GPU computes it: a 64-bit multiply-add, then a funnel shift that keeps the 32 bits
    // from bit 32 - shift up (floor division by 2^(32 - shift) while the result fits 32 bits).
    const uint64_t t = static_cast<uint64_t>(s * m + c);
    const uint32_t lo = static_cast<uint32_t>(t), hi = static_cast<uint32_t>(t >> 32);
    const uint32_t bits = shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
    return std::clamp<int64_t>(static_cast<int32_t>(bits), 0, peak);
}

namespace {

// The offsets c for which floor((s * m + c) / u), clamped to [0, peak], is target(s) for every s
// in the range: the intersection of one interval per s. Empty when lo > hi.
struct Interval {
    int64_t lo = std::numeric_limits<int64_t>::min();
    int64_t hi = std::numeric_limits<int64_t>::max();
};

Interval offsets_for(float rdiv, float bias, int peak, int64_t smin, int64_t smax, int64_t m, int64_t u) {
    Interval r;
    for (int64_t s = smin; s <= smax && r.lo <= r.hi; ++s) {
        const int t = finish_convolve(static_cast<float>(s), rdiv, bias, peak);
        const int64_t sm = s * m;
        if (t > 0) r.lo = std::max(r.lo, t * u - sm);            // floor(...) >= t
        if (t < peak) r.hi = std::min(r.hi, (t + 1) * u - 1 - sm);  // floor(...) <= t
    }
    return r;
}

}  // namespace

std::optional<FixedFinish> solve_fixed_finish(float rdiv, float bias, int peak, int64_t smin, int64_t smax) {
    constexpr int64_t kMaxSums = int64_t(1) << 23;  // exact as floats, and a bounded search
    if (!std::isfinite(rdiv) || !std::isfinite(bias) || smin > smax || smax - smin >= kMaxSums) return std::nullopt;
    if (std::max(std::abs(smin), std::abs(smax)) >= kMaxSums || std::fabs(bias) > 1e6f) return std::nullopt;
    // The largest scale 2^(32 - shift) that keeps |m| below 2^30 (room for the candidates
    // either side), so s * m and the offset stay far inside 64 bits.
    int shift = 0;
    while (shift < 31 && std::fabs(static_cast<double>(rdiv)) * std::ldexp(1.0, 32 - shift) >= std::ldexp(1.0, 30)) ++shift;
    if (std::fabs(static_cast<double>(rdiv)) * std::ldexp(1.0, 32 - shift) >= std::ldexp(1.0, 30)) return std::nullopt;
    const int64_t u = int64_t(1) << (32 - shift);
    const int64_t m0 = std::llround(static_cast<double>(rdiv) * static_cast<double>(u));
    // The nearest m first; the float rounding of the reference can want a slightly other slope.
    for (int64_t d : {0, 1, -1, 2, -2, 3, -3}) {
        const int64_t m = m0 + d;
        const Interval r = offsets_for(rdiv, bias, peak, smin, smax, m, u);
        if (r.lo > r.hi) continue;
        FixedFinish f;
        f.m = static_cast<int32_t>(m);
        f.shift = shift;
        // Middle of the interval (either end may be unbounded when every sum clamps one way).
        if (r.lo == std::numeric_limits<int64_t>::min()) f.c = r.hi;
        else if (r.hi == std::numeric_limits<int64_t>::max()) f.c = r.lo;
        else f.c = r.lo + (r.hi - r.lo) / 2;
        // The intervals assume the shifted value fits 32 bits; check every sum as the GPU
        // computes it.
        bool exact = true;
        for (int64_t s = smin; s <= smax && exact; ++s)
            exact = f.apply(s, peak) == finish_convolve(static_cast<float>(s), rdiv, bias, peak);
        if (exact) return f;
    }
    return std::nullopt;
}

}  // namespace vf
