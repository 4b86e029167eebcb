// tensor-half: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/tensor_half.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"
#include "common/error.hpp"

namespace vf::gpu_test {
namespace {

TEST(TensorHalf, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("tensor-half", Accuracy::Exact);
}

// The tensor-core kernel (whole-number taps, half-precision products, FP32 sums) must equal the
// reference exactly: kernel shapes from 1x1 to 65x65 and rectangular ones up to 81 wide or tall
// (1 to 6 chunks of 16 input columns, each count a kernel of its own), planes smaller than one
// 128x32 block, at and just over block edges, every border, 8 and 10 bit, p010's shifted samples,
// nv12's interleaved chroma, and taps at the limits it accepts (+-2048; sums near 2^24).
const TapShape kTensorShapes[] = {{1, 1, 2048}, {3, 3, 2048}, {7, 7, 99}, {17, 1, 50}, {1, 17, 50}, {9, 5, 30}, {5, 13, 30},
                                  {13, 13, 9}, {27, 27, 9}, {33, 31, 17}, {41, 9, 30}, {63, 63, 4}, {65, 65, 3},
                                  {81, 3, 30}, {1, 81, 20}};


class TensorHalf : public ::testing::TestWithParam<TapShape> {};

// One kernel shape a test, so that the suite's shards share the work.
TEST_P(TensorHalf, ExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    const TapShape sh = GetParam();
    std::mt19937 rng(43 + sh.kw * 131 + sh.kh);
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {2, 3}, {63, 65}, {64, 64}, {65, 129}, {127, 31}, {130, 63}, {257, 71}};
    int tested = 0;
    PlaneOp op = random_taps(sh.kw, sh.kh, sh.max_tap, rng);
    op.conv.k[0] = sh.max_tap;
    op.conv.k.back() = -sh.max_tap;
    op.conv.rdiv = 1.0f / (sh.kw * sh.kh * sh.max_tap * 0.3f + 1);
    op.conv.bias = 128;
    finalize_convolve(op.conv);
    const std::string name = std::to_string(sh.kw) + "x" + std::to_string(sh.kh) + " taps to " + std::to_string(sh.max_tap);
    std::string why;
    ASSERT_TRUE(cuda::tensor_eligible(op.conv, TestPlane(1, 1, 8).view(), &why)) << name << " should be taken: " << why;
    for (const Size s : sizes)
        for (Border b : kBorders) {
            const unsigned seed = rng();  // fresh data per size and border; its layouts share it
            for (int layout : {0, 3, 1, 2}) {  // 8-bit layouts, then 10-bit: each pair shares its reference
                const int depth = layout == 0 || layout == 3 ? 8 : 10, shift = layout == 2 ? 6 : 0, step = layout == 3 ? 2 : 1;
                if (depth == 10 && !cuda::tensor_eligible(op.conv, TestPlane(1, 1, 10).view())) continue;
                op.border = b;
                const Outcome o = run_case(op, s.w, s.h, depth, KernelFamily::Tensor, seed, step, step - 1, shift, layout == 1);
                expect_close(o, static_cast<long>(s.w) * s.h, true,
                             name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b) + " layout " +
                                 std::to_string(layout));
                ++tested;
            }
        }
    // 8-bit rows 64-byte aligned, large enough for blocks wholly inside the plane: their tiles
    // are staged a word at a time (every offset of the tile's first column within a word
    // comes up among these kernel widths).
    for (Border b : kBorders) {
        op.border = b;
        expect_close(run_case(op, 521, 190, 8, KernelFamily::Tensor, rng(), 1, 0, 0, true), 521L * 190, true,
                     name + " 521x190 aligned " + border_name(b));
    }
    EXPECT_GE(tested, static_cast<int>(std::size(sizes)) * 3 * 2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TensorHalf, ::testing::ValuesIn(kTensorShapes), shape_name);

// kernel shapes from 1x1 to 65x65 above, here: a large plane, auto, and what the path refuses.
TEST(TensorHalf, LargePlaneAutoAndRefusals) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(43);
    // A large plane with a ragged right and bottom edge, and auto (which times it against the
    // others) giving the same bytes.
    PlaneOp op = random_dense(27, 9, 1.0f / 700, 128, rng);
    expect_close(run_case(op, 1921, 1083, 8, KernelFamily::Tensor, 5), 1921L * 1083, true, "27x27 tensor 1921x1083");
    expect_exact(run_case(op, 1921, 1083, 8, KernelChoice{}, 5), "27x27 auto 1921x1083");
    // What it refuses: taps that are not whole numbers, beyond +-2048, sums that could pass 2^24.
    PlaneOp frac = random_dense(7, 9, 1, 0, rng);
    frac.conv.k[3] = 0.5;
    finalize_convolve(frac.conv);
    EXPECT_FALSE(cuda::tensor_eligible(frac.conv, TestPlane(1, 1, 8).view()));
    PlaneOp wide = random_dense(7, 9, 1, 0, rng);
    wide.conv.k[3] = 2049;
    finalize_convolve(wide.conv);
    EXPECT_FALSE(cuda::tensor_eligible(wide.conv, TestPlane(1, 1, 8).view()));
    PlaneOp sums = random_dense(31, 1, 1, 0, rng);
    for (double& t : sums.conv.k) t = 17;  // 961 x 17 x 1023 < 2^24 <= 961 x 18 x 1023
    finalize_convolve(sums.conv);
    EXPECT_TRUE(cuda::tensor_eligible(sums.conv, TestPlane(1, 1, 10).view()));
    sums.conv.k[0] = 18 * 961 - 17 * 960;
    finalize_convolve(sums.conv);
    EXPECT_FALSE(cuda::tensor_eligible(sums.conv, TestPlane(1, 1, 10).view()));
    try {
        run_case(frac, 33, 17, 8, KernelFamily::Tensor, 1);
        ADD_FAILURE() << "--kernel tensor took a kernel it cannot compute exactly";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
    }
}

}  // namespace
}  // namespace vf::gpu_test
