// gradient-strip16: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/gradient_strip16.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientStrip16, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-strip16", Accuracy::Exact);
}

// The gradients with an integer form of their finish (integer sums, an integer square root): the
// reference's bytes.
TEST(GradientStrip16, ExactOnEveryGradientItTakes) {
    SKIP_WITHOUT_GPU();
    unsigned seed = 92;
    for (const char* spec : {"sobel", "prewitt", "laplacian"})
        check_row_cases("gradient-strip16", Accuracy::Exact, build_chain(spec)[0].ops[0], 8, 1, true, seed++);
}

}  // namespace
}  // namespace vf::gpu_test
