// box-walk: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/box_walk.cu.
#include <gtest/gtest.h>

#include <iterator>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(BoxWalk, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("box-walk", Accuracy::Exact);
}

// Box filters: the kernel that stages its tile by cp.async (8-bit planes with 16-byte aligned
// rows) and the one that walks the plane (any other layout) against the reference, exactly:
// square and rectangular windows from 3 to 127 (a tile halo of 16 to 64 columns), -1 taps,
// planes smaller than one 128 x 32 block and over block edges, every border, means rounded and
// truncated (FFmpeg's avgblur).
TEST(BoxWalk, BothWalksExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(59);
    struct Box {
        int kw, kh, tap;
    };
    const Box boxes[] = {{3, 3, 1}, {5, 9, 1}, {33, 3, 1}, {63, 63, 1}, {65, 31, -1}, {127, 5, 1}, {7, 127, 1}, {127, 127, 1}};
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {2, 3}, {17, 40}, {128, 32}, {129, 33}, {300, 70}, {521, 190}};
    int tested = 0;
    for (const Box& bx : boxes) {
        PlaneOp op = rank1(std::vector<int>(bx.kh, 1), std::vector<int>(bx.kw, bx.tap), 1.0f / (bx.kw * bx.kh), bx.tap < 0 ? 255.0f : 0.0f);
        ASSERT_TRUE(op.conv.separable());
        for (const Size s : sizes)
            for (Border b : kBorders)
                for (bool aligned : {true, false}) {
                    if (bx.kw * bx.kh > 3000 && s.w * s.h > 300 * 70) continue;  // the CPU reference's time
                    op.border = b;
                    // Rows not aligned truncate their means (a divisor, FFmpeg's avgblur), aligned ones round.
                    op.conv.divisor = aligned || bx.tap < 0 ? 0 : bx.kw * bx.kh;
                    const Outcome o = run_case(op, s.w, s.h, 8, KernelFamily::Separable, rng(), 1, 0, 0, aligned);
                    expect_close(o, static_cast<long>(s.w) * s.h, true,
                                 "box " + std::to_string(bx.kw) + "x" + std::to_string(bx.kh) + " " + std::to_string(s.w) + "x" +
                                     std::to_string(s.h) + " " + border_name(b) + (aligned ? " aligned" : " truncated"));
                    ++tested;
                }
    }
    const int borders = static_cast<int>(std::size(kBorders));
    EXPECT_EQ(tested, 8 * 10 * borders * 2 - 2 * borders * 2);
    PlaneOp big = build_chain("box=radius=31")[0].ops[0];
    for (Border b : kBorders) {
        big.border = b;
        expect_close(run_case(big, 3841, 2161, 8, KernelFamily::Separable, rng(), 1, 0, 0, true), 3841L * 2161, true,
                     std::string("box 63x63, 3841x2161, ") + border_name(b));
    }
    // The largest truncated mean at 10 bit: sums up to 127 x 127 x 1023, the quotient's float
    // estimate corrected exactly (box_sums.cuh).
    PlaneOp widest = build_chain("avgblur=sizeX=63:round=down:border=replicate")[0].ops[0];
    ASSERT_EQ(widest.conv.divisor, 127 * 127);
    expect_close(run_case(widest, 300, 200, 10, KernelFamily::Separable, rng(), 1, 0, 0, false), 300L * 200, true,
                 "avgblur 127x127 truncated, 10 bit");
}

}  // namespace
}  // namespace vf::gpu_test
