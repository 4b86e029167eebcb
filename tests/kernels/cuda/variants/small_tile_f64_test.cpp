// small-tile-f64: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/small_tile_f64.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(SmallTileF64, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("small-tile-f64", Accuracy::Exact);
}

// Taps that are not whole numbers, summed in double in the reference's order: the reference's bytes.
TEST(SmallTileF64, ExactOnFractionalKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(111);
    unsigned seed = 112;
    for (int k : {3, 5, 7}) {
        PlaneOp op = random_dense(k, 9, 1.0f / (k * 20), 100, rng);
        op.conv.k[1] = 0.375;
        finalize_convolve(op.conv);
        ASSERT_FALSE(op.conv.integer);
        check_row_cases("small-tile-f64", Accuracy::Exact, op, 8, 1, false, seed++);
    }
}

}  // namespace
}  // namespace vf::gpu_test
