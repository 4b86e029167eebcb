// gradient-strip: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/gradient_strip.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientStrip, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-strip");
}

}  // namespace
}  // namespace vf::gpu_test
