// strip16-dp4a: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/strip16_dp4a.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Strip16Dp4a, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("strip16-dp4a", Accuracy::Exact);
}

// Whole-number K x K kernels (3 to 15) with byte taps on 8-bit planes with 16-byte aligned rows
// take the 16-wide strips with the integer finish (strip16_rows.cuh; `tiled` forced, which is
// what `auto` runs below 7x7 and times against the tensor path from 7x7): exactly the reference
// at every block edge (blocks are 128 x 16 outputs; widths that are and are not a multiple of 16,
// so the last strip is whole or partial; the halo is 4 bytes up to 9x9, 8 above), for finishes
// with and without the funnel shift (|rdiv| below and above 1/4), a negative divisor, and a
// divisor whose integer finish does not exist (the float paths then); at 13x13 and 15x15 also
// taps over the whole byte range. The gradients with default divisor, scale and delta take the
// same strips with an integer magnitude (|Laplacian|'s sums are all perfect squares, the square
// root's hardest case).
TEST(Strip16Dp4a, ExactAtEveryBlockEdgeAndFinish) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(43);
    const Size sizes[] = {{1, 1}, {4, 3}, {15, 2}, {16, 16}, {17, 9}, {20, 7}, {255, 8}, {256, 9}, {257, 17},
                          {272, 33}, {273, 5}, {529, 24}, {1921, 43}};
    struct Case {
        int k, max_tap;
        float rdiv, bias;
        bool integer_finish;  // whether solve_fixed_finish finds one (asserted below)
    };
    std::vector<Case> cases;
    for (int k : {3, 5, 7, 9, 11, 13, 15})
        for (const Case f : {Case{k, 9, 1.0f / 36, 128, true}, Case{k, 9, 1.0f, 0, true}, Case{k, 9, 0.01f, 128, true},
                             Case{k, 9, -1.0f / 9, 200, true}, Case{k, 9, 0.3f, 100, false}})
            cases.push_back(f);
    cases.push_back({13, 127, 1.0f / 16384, 128, true});
    cases.push_back({15, 127, 1.0f / 16384, 128, true});
    for (const Case& c : cases) {
        PlaneOp op = random_dense(c.k, c.max_tap, c.rdiv, c.bias, rng);
        op.conv.k[0] = -c.max_tap - (c.max_tap == 127);  // the sums' range then reaches that of the extreme taps
        op.conv.k[1] = c.max_tap;
        finalize_convolve(op.conv);
        long long lo = 0, hi = 0;
        for (double t : op.conv.k) (t < 0 ? lo : hi) += static_cast<long long>(t) * 255;
        const std::string name = std::to_string(c.k) + "x" + std::to_string(c.k) + " taps to " + std::to_string(c.max_tap) +
                                 " rdiv " + std::to_string(c.rdiv);
        ASSERT_EQ(solve_fixed_finish(c.rdiv, c.bias, 255, lo, hi).has_value(), c.integer_finish) << name;
        for (const Size sz : sizes)
            for (Border b : kBorders) {
                op.border = b;
                expect_close(run_case(op, sz.w, sz.h, 8, KernelFamily::Direct, rng(), 1, 0, 0, true), static_cast<long>(sz.w) * sz.h,
                             true, name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " " + border_name(b));
            }
    }
    for (const char* spec : {"sobel", "prewitt", "laplacian", "laplacian=diagonal=1", "scharr"}) {
        PlaneOp op = build_chain(spec)[0].ops[0];
        for (const Size sz : sizes)
            for (Border b : kBorders) {
                op.border = b;
                expect_close(run_case(op, sz.w, sz.h, 8, KernelChoice{}, rng(), 1, 0, 0, true), static_cast<long>(sz.w) * sz.h,
                             true, std::string(spec) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " " + border_name(b));
            }
    }
}

}  // namespace
}  // namespace vf::gpu_test
