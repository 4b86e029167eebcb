// separable-f32: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/separable_f32.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(SeparableF32, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("separable-f32", Accuracy::WithinOneRarely);
}

// The separable kernel's row pass runs the taps in zero-padded chunks of 8 (the tile is loaded
// that much wider): tap counts that are not a multiple of 8, the widest (121), negative taps, a
// tile wider and taller than the plane. Against the reference within the separable rows' documented
// tolerance (within 1, in at most 1 sample of 1000: the FP32 column pass rounds a few Gaussian sums
// the other way).
TEST(SeparableF32, WithinOneAtEveryTapCount) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(41);
    for (const char* spec : {"gaussian=sigma=0.6", "gaussian=sigma=2:size=9", "gaussian=sigma=3.2", "gaussian=sigma=15",
                             "convolution=m=1 2 1 2 4 2 1 2 1",
                             "convolution=m=1 -2 3 -2 1 -2 4 -6 4 -2 3 -6 9 -6 3 -2 4 -6 4 -2 1 -2 3 -2 1:rdiv=0.0123:bias=128"}) {
        PlaneOp op = build_chain(spec)[0].ops[0];
        ASSERT_TRUE(op.conv.separable()) << spec;
        for (const Size s : {Size{1, 1}, Size{9, 70}, Size{203, 131}, Size{333, 250}})
            for (Border b : kBorders)
                for (int depth : {8, 10}) {
                    const unsigned seed = rng();  // fresh data per case; both pitches share it
                    for (bool aligned : {false, true}) {
                        op.border = b;
                        expect_close(run_case(op, s.w, s.h, depth, KernelFamily::Separable, seed, 1, 0, 0, aligned),
                                     static_cast<long>(s.w) * s.h, false,
                                     std::string(spec) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                         border_name(b) + " " + std::to_string(depth) + " bit" + (aligned ? " aligned" : ""));
                    }
                }
    }
}

}  // namespace
}  // namespace vf::gpu_test
