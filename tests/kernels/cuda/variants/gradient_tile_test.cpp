// gradient-tile: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/gradient_tile.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientTile, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-tile", Accuracy::Exact);
}

// FP32 sums of 3x3 whole-number taps (far below 2^24) and the CPU's finish: the reference's bytes,
// on interleaved chroma and odd pitches.
TEST(GradientTile, ExactOnEveryGradient) {
    SKIP_WITHOUT_GPU();
    unsigned seed = 103;
    for (const char* spec : {"sobel", "prewitt", "scharr=scale=0.7:delta=9", "laplacian"})
        for (int depth : {8, 10})
            check_row_cases("gradient-tile", Accuracy::Exact, build_chain(spec)[0].ops[0], depth, 2, false, seed++);
}

}  // namespace
}  // namespace vf::gpu_test
