// box-staged: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/box_staged.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(BoxStaged, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("box-staged", Accuracy::Exact);
}

// Box filters take running sums in 128x32 output tiles (a walk down each input column, then
// running totals across each row): sums of whole numbers, so they must match the reference
// exactly at every tile edge (planes narrower, shorter or just over a tile; a window reaching
// past the top or bottom, where the walk goes through the border rule; the widest box, 127),
// for 8 and 10 bit, p010's shifted samples, nv12's interleaved chroma, rows aligned and not;
// FFmpeg's avgblur's truncated means too.
TEST(BoxStaged, ExactAtEveryTileEdge) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(37);
    struct BoxCase {
        const char* spec;
        std::vector<Size> sizes;
    };
    const BoxCase cases[] = {
        {"box=radius=1", {{1, 1}, {3, 2}, {129, 65}, {300, 3}, {260, 200}}},
        {"box=radius=31", {{1, 1}, {5, 300}, {129, 65}, {260, 200}}},
        {"box=radius=63", {{2, 1}, {5, 300}, {260, 200}}},
        {"convolution=m=1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1:rdiv=0.05:bias=3", {{7, 3}, {131, 66}}},
        // FFmpeg's avgblur: the means truncated (a divisor), not rounded.
        {"avgblur=sizeX=4:sizeY=2:round=down", {{1, 1}, {3, 2}, {129, 65}, {639, 359}}},
        {"avgblur=sizeX=63:sizeY=17:round=down", {{2, 1}, {260, 200}}},
    };
    for (const BoxCase& c : cases) {
        PlaneOp op = build_chain(c.spec)[0].ops[0];
        ASSERT_TRUE(op.conv.separable()) << c.spec;
        for (const Size s : c.sizes)
            for (Border b : kBorders) {
                const unsigned seed = rng();  // fresh data per size and border; its layouts share it
                for (int layout = 0; layout < 4; ++layout)
                    for (bool aligned : {false, true}) {
                        op.border = b;
                        const int depth = layout == 0 || layout == 3 ? 8 : 10, shift = layout == 2 ? 6 : 0, step = layout == 3 ? 2 : 1;
                        const Outcome o = run_case(op, s.w, s.h, depth, KernelChoice{}, seed, step, step - 1, shift, aligned);
                        expect_close(o, static_cast<long>(s.w) * s.h, true,
                                     std::string(c.spec) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                         border_name(b) + " layout " + std::to_string(layout) + (aligned ? " aligned" : ""));
                    }
            }
    }
    PlaneOp big = build_chain("box=radius=31")[0].ops[0];
    for (Border b : kBorders) {
        big.border = b;
        expect_close(run_case(big, 1921, 1083, 8, KernelChoice{}, rng(), 1, 0, 0, true), 1921L * 1083, true,
                     std::string("box 63x63, 1921x1083, ") + border_name(b));
    }
}

}  // namespace
}  // namespace vf::gpu_test
