// FFmpeg 5.1's 3x3 edge (Border::MirrorRepeat: border=ffmpeg, the default of sobel, prewitt,
// scharr, roberts, kirsch and convolution under --compat ffmpeg) on the GPU: each filter of the
// family as --compat ffmpeg plans it, through every row of the dispatch table that takes it and
// through auto, against the CPU reference as the row's family is documented to be (the integer
// rows exactly): odd sizes, widths that end a 16-sample strip exactly (the strip rows build that
// halo from the strip's own samples), planes of one and two samples, 8 and 10 bit, rows aligned
// for vector loads or not, fresh random samples and a poisoned output.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

const char* const kThreeByThreeFamily[] = {
    "sobel",
    "prewitt",
    "scharr",
    "roberts",
    "kirsch",
    "sobel=scale=2:delta=10",
    "convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:1:1:1:1:3:3:3:0",
    "convolution=1 -2 3 -4 5 -6 7 -8 9:1 2 1 2 4 2 1 2 1:1 2 1 2 4 2 1 2 1:1 2 1 2 4 2 1 2 1:1/5:1/5:1/5:1/5:128:128:128:128",
};

const Size kEdgeSizes[] = {{1, 1}, {2, 2}, {16, 5}, {32, 17}, {35, 19}, {97, 61}, {320, 241}};

PlaneOp ffmpeg_edge_plan(const char* spec) {
    return build_chain(spec, FilterDefaults::Ffmpeg, FrameGeometry{97, 61, 1, 1})[0].ops[0];
}

TEST(FfmpegEdge, EveryRowTakingTheFamilyMatchesTheReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(63);
    int tested = 0;
    for (const char* spec : kThreeByThreeFamily) {
        const PlaneOp op = ffmpeg_edge_plan(spec);
        ASSERT_EQ(op.border, Border::MirrorRepeat) << spec << ": --compat ffmpeg's border";
        for (const cuda::Variant& row : cuda::dispatch_table())
            for (int depth : {8, 10})
                for (bool aligned : {false, true})
                    for (const Size s : kEdgeSizes) {
                        const TestPlane probe(s.w, s.h, depth, 1, 0, 0, aligned);
                        if (!cuda::row_takes(row, op, device_like(probe), device_like(probe))) continue;
                        const Outcome o = run_row(row.name, op, s.w, s.h, depth, rng(), 1, 0, 0, aligned);
                        const std::string what = std::string(spec) + " through " + row.name + " on " + std::to_string(s.w) + "x" +
                                                 std::to_string(s.h) + " " + std::to_string(depth) + "-bit" + (aligned ? " aligned" : "");
                        expect_accuracy(o, family_accuracy(row.family), op, depth, static_cast<long>(s.w) * s.h, what);
                        ++tested;
                    }
    }
    EXPECT_GT(tested, 0);
}

// What auto runs for the family under --compat ffmpeg is exact: the bytes FFmpeg 5.1 gives.
TEST(FfmpegEdge, AutoIsExactOnTheFamily) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(64);
    for (const char* spec : kThreeByThreeFamily)
        for (int depth : {8, 10})
            for (const Size s : kEdgeSizes) {
                const Outcome o = run_case(ffmpeg_edge_plan(spec), s.w, s.h, depth, KernelChoice{}, rng());
                expect_exact(o, std::string(spec) + " auto (" + o.ran + ") on " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                    std::to_string(depth) + "-bit");
            }
}

}  // namespace
}  // namespace vf::gpu_test
