// box-passes: FFmpeg 5.1's boxblur arithmetic (OpKind::BoxPasses) on the GPU, forced by name,
// against the CPU reference exactly: radii and powers (many passes), 8, 10 and 16 bit, every
// border and FFmpeg's own (reflect), planar and interleaved layouts, odd sizes, fresh random
// samples and a poisoned output. How it works: kernels/cuda/variants/box_passes.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

PlaneOp box_op(int radius, int power) {
    PlaneOp op;
    op.kind = OpKind::BoxPasses;
    op.box.radius = radius;
    op.box.power = power;
    return op;
}

TEST(BoxPasses, ExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    unsigned seed = 71;
    for (const auto& [r, p] : {std::pair{1, 1}, {2, 1}, {2, 2}, {7, 3}, {1, 9}})
        for (int depth : {8, 10, 16})
            for (int step : {1, 2}) check_row_cases("box-passes", Accuracy::Exact, box_op(r, p), depth, step, step == 1, seed++);
}

// FFmpeg's own edge, the half-sample reflection, and the plan --compat ffmpeg makes of FATE's case.
TEST(BoxPasses, FfmpegsEdgeAndFatesCaseExact) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(72);
    PlaneOp op = box_op(5, 2);
    op.border = Border::Reflect;
    for (const Size s : {Size{11, 11}, Size{97, 61}, Size{320, 241}})
        for (int depth : {8, 10}) {
            const Outcome o = run_row("box-passes", op, s.w, s.h, depth, rng());
            expect_exact(o, "box-passes reflect " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + std::to_string(depth) + "-bit");
        }
    const PlaneOp fate = build_chain("boxblur=2:1", FilterDefaults::Ffmpeg, FrameGeometry{352, 288, 1, 1})[0].ops[0];
    ASSERT_EQ(fate.kind, OpKind::BoxPasses);
    const Outcome o = run_case(fate, 352, 288, 8, KernelChoice{}, rng());
    EXPECT_EQ(o.ran, "box-passes");
    expect_exact(o, "boxblur=2:1 under --compat ffmpeg, auto");
}

}  // namespace
}  // namespace vf::gpu_test
