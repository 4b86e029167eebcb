// gradient-strip16: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/gradient_strip16.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientStrip16, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-strip16");
}

}  // namespace
}  // namespace vf::gpu_test
