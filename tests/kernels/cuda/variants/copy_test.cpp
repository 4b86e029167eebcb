// copy: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/copy.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Copy, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("copy", Accuracy::Exact);
}

TEST(Copy, EveryLayout) {
    SKIP_WITHOUT_GPU();
    PlaneOp copy;
    copy.kind = OpKind::Copy;
    expect_close(run_case(copy, 45, 33, 10, KernelChoice{}, 1, 2, 1, 6), 45 * 33, true, "copy");
    // Planar copies take the driver's 2D copy (pitches differ from the width: padding must stay).
    expect_close(run_case(copy, 45, 33, 8, KernelChoice{}, 2), 45 * 33, true, "copy planar 8-bit");
    expect_close(run_case(copy, 45, 33, 10, KernelChoice{}, 3, 1, 0, 0, true), 45 * 33, true, "copy planar 10-bit");
    expect_close(run_case(copy, 45, 33, 10, KernelChoice{}, 4, 1, 0, 6, true), 45 * 33, true, "copy p010 luma");
}

}  // namespace
}  // namespace vf::gpu_test
