// strip-f32: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/strip_f32.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(StripF32, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("strip-f32", Accuracy::ExactWhereFp32SumsAre);
}

// Whole-number 3x3 taps whose sums stay below 2^24: every FP32 partial sum is a float exactly, so
// the bytes are the reference's, on 8-bit and 10-bit planes.
TEST(StripF32, ExactOnWholeNumberKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(121);
    const PlaneOp op = random_dense(3, 100, 1.0f / 600, 128, rng);
    ASSERT_TRUE(fp32_sums_exact(op, 10));
    check_row_cases("strip-f32", Accuracy::Exact, op, 8, 1, true, 122);
    check_row_cases("strip-f32", Accuracy::Exact, op, 10, 1, true, 123);
}

}  // namespace
}  // namespace vf::gpu_test
