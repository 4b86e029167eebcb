// naive: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/naive.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Naive, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("naive");
}

}  // namespace
}  // namespace vf::gpu_test
