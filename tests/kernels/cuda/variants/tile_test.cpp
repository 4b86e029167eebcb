// tile: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/tile.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Tile, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("tile", Accuracy::ExactWhereFp32SumsAre);
}

// Whole-number taps whose sums stay below 2^24: every FP32 partial sum is a float exactly, so the
// bytes are the reference's, on a kernel wider than a tile row's chunk of 8 and interleaved chroma.
TEST(Tile, ExactOnWholeNumberKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(131);
    const PlaneOp op = random_dense(31, 9, 1.0f / 3000, 128, rng);
    ASSERT_TRUE(fp32_sums_exact(op, 8));
    check_row_cases("tile", Accuracy::Exact, op, 8, 1, false, 132);
    check_row_cases("tile", Accuracy::Exact, op, 8, 2, false, 133);
}

}  // namespace
}  // namespace vf::gpu_test
