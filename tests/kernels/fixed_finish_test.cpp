// The integer finish of whole-number kernels (kernels/fixed_finish.hpp), which the GPU's 3x3 and
// 5x5 byte-tap path uses instead of the float finish: it must give the reference's output for
// every sum a kernel can produce, for the divisors and biases filters use and for awkward ones
// (divisors whose float is a little below or above the exact fraction, negative, zero, large).
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "kernels/fixed_finish.hpp"
#include "kernels/reference.hpp"

namespace vf {
namespace {

// Solves for the range of a kernel whose taps sum to `neg` and `pos` on each side, at 8 bits,
// and checks every sum in the range, independently of the solver's own check. Returns false when
// there was no solution (then the GPU keeps the float finish), which `required` makes a failure.
bool expect_exact(float rdiv, float bias, long long neg, long long pos, int peak = 255, bool required = true) {
    const long long lo = neg * peak, hi = pos * peak;
    const std::optional<FixedFinish> f = solve_fixed_finish(rdiv, bias, peak, lo, hi);
    if (!f) {
        EXPECT_FALSE(required) << "rdiv " << rdiv << " bias " << bias << ": no integer finish";
        return false;
    }
    EXPECT_GE(f->shift, 0);
    EXPECT_LE(f->shift, 31);
    long long wrong = 0, first = 0;
    for (long long s = lo; s <= hi; ++s)
        if (f->apply(s, peak) != finish_convolve(static_cast<float>(s), rdiv, bias, peak) && wrong++ == 0) first = s;
    EXPECT_EQ(wrong, 0) << "rdiv " << rdiv << " bias " << bias << ": first wrong sum " << first;
    return true;
}

TEST(FixedFinish, MatchesTheFloatFinishForTheBuiltInFilters) {
    expect_exact(1.0f, 0.0f, -8, 8);     // laplacian: shift > 0 (rdiv >= 1/4)
    expect_exact(1.0f, 0.0f, -4, 4);     // sobel-like
    expect_exact(1.0f / 16, 0.0f, 0, 16);  // gaussian 3x3
    expect_exact(1.0f / 9, 0.0f, 0, 9);    // box 3x3
    expect_exact(1.0f, 128.0f, -4, 4);     // emboss
    expect_exact(1.0f, 0.0f, -4, 5);       // sharpen
}

// Divisors whose float lies below the exact fraction (0.01, 1/25, 1/100) put the float finish a
// rounding above the exact value at some sums: the solver must follow the float, not the fraction.
// Where the float's roundings go both ways at sums of one range no single slope and offset fits
// (0.3 with bias 100 is one): the solver must say so, and the GPU keeps the float finish.
TEST(FixedFinish, FollowsTheFloatRoundingOfAwkwardDivisors) {
    for (const float rdiv : {0.01f, 1.0f / 25, 1.0f / 36, 1.0f / 100, 1.0f / 3, 1.0f / 7, 1.0f / 49, 0.1f, 0.7f})
        for (const float bias : {0.0f, 0.5f, 128.0f, -20.0f})
            expect_exact(rdiv, bias, -81, 81);
    expect_exact(0.01f, 128.0f, -3175, 3175);  // a 5x5 with taps at +-127 everywhere
    expect_exact(1.0f / 100, 128.0f, -225, 225);  // the benchmark's dense 5x5 (taps -9..9)
    expect_exact(1.0f / 36, 128.0f, -81, 81);     // and 3x3
    EXPECT_FALSE(expect_exact(0.3f, 100.0f, -81, 81, 255, false));
}

TEST(FixedFinish, NegativeZeroAndLargeDivisors) {
    expect_exact(-1.0f / 9, 200.0f, -9, 9);
    expect_exact(-2.0f, 7.0f, -4, 4);
    expect_exact(0.0f, 37.0f, -9, 9);
    expect_exact(0.0f, -5.0f, -9, 9);  // every output 0
    expect_exact(3.0f, 0.0f, -9, 9);
    expect_exact(1000.0f, 0.0f, -2, 2);
    expect_exact(1.0f, 0.0f, 0, 0);  // an all-zero kernel: a range of one sum
}

// Any solution found is exact; and solutions are the rule, not the exception (else the fast path
// would rarely run).
TEST(FixedFinish, RandomDivisorsAndBiases) {
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> rdiv(-0.5f, 0.5f), bias(-300.0f, 300.0f);
    std::uniform_int_distribution<int> side(0, 200);
    int solved = 0, tried = 0;
    for (int i = 0; i < 60; ++i, ++tried) solved += expect_exact(rdiv(rng), bias(rng), -side(rng), side(rng), 255, false);
    for (int i = 0; i < 20; ++i, ++tried)
        solved += expect_exact(1.0f / static_cast<float>(1 + side(rng)), 0.5f, -side(rng), side(rng), 255, false);
    EXPECT_GE(solved * 10, tried * 8) << solved << " of " << tried << " solved";
    expect_exact(0.37f, 12.0f, -40, 40, 1023, false);  // the solver itself does not assume 8 bits
}

TEST(FixedFinish, RefusesWhatItCannotCheck) {
    EXPECT_FALSE(solve_fixed_finish(std::numeric_limits<float>::quiet_NaN(), 0.0f, 255, -10, 10));
    EXPECT_FALSE(solve_fixed_finish(1.0f, std::numeric_limits<float>::infinity(), 255, -10, 10));
    EXPECT_FALSE(solve_fixed_finish(1.0f / 9, 0.0f, 255, 0, int64_t(1) << 24));  // too many sums
    EXPECT_FALSE(solve_fixed_finish(1.0f / 9, 0.0f, 255, 10, -10));             // empty range
    EXPECT_FALSE(solve_fixed_finish(1e30f, 0.0f, 255, -10, 10));               // no 32-bit slope
}

}  // namespace
}  // namespace vf
