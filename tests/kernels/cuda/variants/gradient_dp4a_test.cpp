// gradient-dp4a: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/gradient_dp4a.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientDp4a, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-dp4a", Accuracy::Exact);
}

// Byte taps summed by DP4A (whole numbers) and the CPU's finish: every gradient with byte taps
// gives the reference's bytes, a fractional scale and a delta included (Scharr's 162 is no byte
// tap: the row does not take it).
TEST(GradientDp4a, ExactOnEveryGradient) {
    SKIP_WITHOUT_GPU();
    unsigned seed = 88;
    for (const char* spec : {"sobel", "prewitt", "sobel=scale=0.7:delta=9", "laplacian"})
        check_row_cases("gradient-dp4a", Accuracy::Exact, build_chain(spec)[0].ops[0], 8, 1, true, seed++);
}

}  // namespace
}  // namespace vf::gpu_test
