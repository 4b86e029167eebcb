// small-tile: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/small_tile.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(SmallTile, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("small-tile", Accuracy::ExactWhereFp32SumsAre);
}

// Whole-number taps whose sums stay below 2^24: every FP32 partial sum is a float exactly, so the
// bytes are the reference's, on 10-bit planes and interleaved chroma.
TEST(SmallTile, ExactOnWholeNumberKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(115);
    unsigned seed = 116;
    for (int k : {3, 5, 7}) {
        const PlaneOp op = random_dense(k, 40, 1.0f / (k * k * 40), 64, rng);
        ASSERT_TRUE(fp32_sums_exact(op, 10));
        check_row_cases("small-tile", Accuracy::Exact, op, 10, 1, false, seed++);
        check_row_cases("small-tile", Accuracy::Exact, op, 8, 2, false, seed++);
    }
}

}  // namespace
}  // namespace vf::gpu_test
