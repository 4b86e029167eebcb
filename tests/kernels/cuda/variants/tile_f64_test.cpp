// tile-f64: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/tile_f64.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(TileF64, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("tile-f64", Accuracy::Exact);
}

// Taps that are not whole numbers, summed in double in the reference's order: the reference's bytes,
// from a kernel larger than the small tiles take.
TEST(TileF64, ExactOnFractionalKernels) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(125);
    PlaneOp op = random_dense(15, 9, 1.0f / 400, 100, rng);
    op.conv.k[7] = -0.625;
    finalize_convolve(op.conv);
    ASSERT_FALSE(op.conv.integer);
    check_row_cases("tile-f64", Accuracy::Exact, op, 8, 1, false, 126);
    check_row_cases("tile-f64", Accuracy::Exact, op, 10, 2, false, 127);
}

}  // namespace
}  // namespace vf::gpu_test
