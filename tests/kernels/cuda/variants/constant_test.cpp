// constant: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/constant.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Constant, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("constant", Accuracy::ExactWhereFp32SumsAre);
}

// Whole-number taps whose sums stay below 2^24: every FP32 partial sum is a float exactly, so the
// bytes are the reference's.
TEST(Constant, ExactOnWholeNumberKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(81);
    const PlaneOp op = random_dense(11, 20, 1.0f / 900, 128, rng);
    ASSERT_TRUE(fp32_sums_exact(op, 8));
    check_row_cases("constant", Accuracy::Exact, op, 8, 1, false, 82);
}

}  // namespace
}  // namespace vf::gpu_test
