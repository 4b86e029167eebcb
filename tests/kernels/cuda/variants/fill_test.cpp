// fill: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/fill.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Fill, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("fill", Accuracy::Exact);
}

TEST(Fill, NeutralGrey) {
    SKIP_WITHOUT_GPU();
    PlaneOp fill;
    fill.kind = OpKind::Fill;
    expect_close(run_case(fill, 45, 33, 8, KernelChoice{}, 1), 45 * 33, true, "fill");
}

}  // namespace
}  // namespace vf::gpu_test
