// gradient-dp4a: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/gradient_dp4a.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(GradientDp4a, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("gradient-dp4a");
}

}  // namespace
}  // namespace vf::gpu_test
