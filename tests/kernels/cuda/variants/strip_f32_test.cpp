// strip-f32: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/strip_f32.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(StripF32, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("strip-f32");
}

}  // namespace
}  // namespace vf::gpu_test
