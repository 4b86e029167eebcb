// compass-tile: the dispatch table's row, forced by name against the reference (gpu_check.hpp),
// and exact on every layout, depth and border with FFmpeg's scale and delta.
// How it works: kernels/cuda/variants/compass_tile.cu.
#include <gtest/gtest.h>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(CompassTile, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("compass-tile", Accuracy::Exact);
}

// Sums of whole numbers and one rounded multiply-add: the output equals the reference exactly.
TEST(CompassTile, ExactOnEveryLayout) {
    SKIP_WITHOUT_GPU();
    for (const char* spec : {"kirsch", "kirsch=scale=0.3:delta=-7", "kirsch=planes=7:scale=2:delta=12.5"}) {
        const PlaneOp op = build_chain(spec)[0].ops[0];
        ASSERT_TRUE(op.grad.compass) << spec;
        for (int depth : {8, 10})
            for (const Size s : {Size{1, 1}, Size{3, 2}, Size{37, 29}, Size{261, 67}})
                for (Border b : kBorders)
                    for (int step : {1, 2}) {
                        PlaneOp o = op;
                        o.border = b;
                        const Outcome r = run_row("compass-tile", o, s.w, s.h, depth, 5u + s.w + depth, step, step - 1);
                        const std::string what = std::string(spec) + " " + std::to_string(depth) + "-bit " +
                                                 std::to_string(s.w) + "x" + std::to_string(s.h) + " step " +
                                                 std::to_string(step) + " " + border_name(b);
                        EXPECT_EQ(r.ran, "compass-tile") << what;
                        EXPECT_EQ(r.differ, 0) << what << ": max off " << r.max_abs;
                        EXPECT_TRUE(r.padding_ok) << what;
                    }
    }
}

}  // namespace
}  // namespace vf::gpu_test
