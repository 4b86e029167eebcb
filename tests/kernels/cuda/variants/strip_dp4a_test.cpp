// strip-dp4a: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/strip_dp4a.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(StripDp4a, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("strip-dp4a", Accuracy::Exact);
}

// A 5x5 with byte taps on an 8-bit plane of 4 Mpixel or more takes the DP4A path (smaller planes
// the tile): every border, the ragged right edge included, exactly as the reference.
TEST(StripDp4a, FiveByFiveOnLargePlanesExact) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(31);
    PlaneOp op = random_dense(5, 127, 1.0f / 800, 128, rng);
    op.conv.k[0] = -128;
    finalize_convolve(op.conv);
    for (Border b : kBorders) {
        op.border = b;
        expect_close(run_case(op, 2309, 1733, 8, KernelChoice{}, rng(), 1, 0, 0, true), 2309L * 1733, true,
                     std::string("5x5 byte taps, 2309x1733, ") + border_name(b));
    }
}

}  // namespace
}  // namespace vf::gpu_test
