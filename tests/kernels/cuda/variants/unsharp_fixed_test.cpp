// unsharp-fixed: FFmpeg 5.1's unsharp fixed point (OpKind::UnsharpFixed) on the GPU, forced by
// name, against the CPU reference exactly: windows from 3x3 to 23x3, amounts negative and
// positive (FFmpeg's float times 65536), 8, 10 and 16 bit (its 1/256 effect above 8 bits, and
// its wrapping sums and products at 16), every border, planar and interleaved layouts, odd sizes,
// fresh random samples and a poisoned output. How it works: kernels/cuda/variants/unsharp_fixed.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

PlaneOp unsharp_op(int steps_x, int steps_y, int amount) {
    PlaneOp op;
    op.kind = OpKind::UnsharpFixed;
    op.unsharp = {steps_x, steps_y, amount};
    return op;
}

TEST(UnsharpFixed, ExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    unsigned seed = 81;
    struct Case {
        int sx, sy, amount;
    };
    for (const Case c : {Case{5, 5, -98304}, Case{2, 2, 65536}, Case{1, 1, 327680}, Case{11, 1, -131072}, Case{3, 9, 19660}})
        for (int depth : {8, 10, 16})
            for (int step : {1, 2})
                check_row_cases("unsharp-fixed", Accuracy::Exact, unsharp_op(c.sx, c.sy, c.amount), depth, step, step == 1, seed++);
}

// FATE's case as --compat ffmpeg plans it, run by auto.
TEST(UnsharpFixed, FatesCaseByAutoExact) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(82);
    const PlaneOp fate = build_chain("unsharp=11:11:-1.5:11:11:-1.5", FilterDefaults::Ffmpeg)[0].ops[0];
    ASSERT_EQ(fate.kind, OpKind::UnsharpFixed);
    for (int depth : {8, 10}) {
        const Outcome o = run_case(fate, 352, 288, depth, KernelChoice{}, rng());
        EXPECT_EQ(o.ran, "unsharp-fixed");
        expect_exact(o, "unsharp=11:11:-1.5:11:11:-1.5 under --compat ffmpeg, auto, " + std::to_string(depth) + "-bit");
    }
}

}  // namespace
}  // namespace vf::gpu_test
