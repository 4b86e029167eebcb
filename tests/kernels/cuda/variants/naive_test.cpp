// naive: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/naive.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Naive, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("naive", Accuracy::ExactWhereFp32SumsAre);
}

// Whole-number taps whose sums stay below 2^24 on 10-bit samples: every FP32 partial sum is a float
// exactly, so the bytes are the reference's.
TEST(Naive, ExactOnWholeNumberKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(83);
    const PlaneOp op = random_dense(9, 30, 1.0f / 4000, 64, rng);
    ASSERT_TRUE(fp32_sums_exact(op, 10));
    check_row_cases("naive", Accuracy::Exact, op, 10, 1, false, 84);
}

}  // namespace
}  // namespace vf::gpu_test
