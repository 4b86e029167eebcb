// The fast CPU path (bands over threads, padded-row ring, int32/int64/double accumulation,
// separable passes) must equal the reference exactly, on fresh random data, every border,
// odd sizes, 8 and 10 bit, planar and interleaved layouts.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "config/filter_registry.hpp"
#include "kernels/cpu_backend.hpp"
#include "kernels/reference.hpp"
#include "support/random_plane.hpp"

namespace vf {
namespace {

using test::TestPlane;

struct Size {
    int w, h;
};

// More workers than CI's cores, so bands really interleave; both instruction sets.
CpuBackend& backend(CpuIsa isa = CpuIsa::Avx2) {
    static CpuBackend avx2(3, CpuIsa::Avx2), generic(3, CpuIsa::Generic);
    return isa == CpuIsa::Generic ? generic : avx2;
}

const char* kSpecs[] = {
    "sobel=planes=all",
    "prewitt=planes=all:scale=0.7:delta=3",
    "scharr=planes=all",
    "kirsch=planes=all:scale=0.6:delta=5",
    "laplacian=planes=all:scale=2",
    "laplacian=planes=all:diagonal=1",
    "gaussian=sigma=1.5",
    "gaussian=sigma=3.2",
    "box=radius=2",
    "box=radius=9",
    "box=radius=40",
    "avgblur=sizeX=4:sizeY=2:round=down",  // FFmpeg's truncated means
    "avgblur=sizeX=30:sizeY=7:round=down",
    "convolution=m=3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3:rdiv=0.01",
    "sharpen=strength=0.8",
    "emboss=planes=all:bias=100",
    "convolution=m=1 2 1 2 4 2 1 2 1",
    "convolution=m=1 2 3 2 4 6 3 6 9:bias=-20",
    "convolution=m=1 2 1 2 4 2 3 6 3:bias=5",  // rank 1, symmetric row, asymmetric column: the ring path
    "convolution=m=0 -1 0 -1 5 -1 0 -1 0",
    "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:rdiv=0.01:bias=128",
    "convolution=m=0.1 0.25 -0.3 0.5 1.5 0.5 -0.3 0.25 0.1",
    "convolution=m=1 4 6 4 1:mode=row",
    "convolution=m=1 4 6 4 1 3 2:mode=column:bias=-7",
};

const Size kSizes[] = {{1, 1}, {2, 3}, {33, 17}, {17, 64}, {127, 5}, {3, 200}};
const Border kBorders[] = {Border::Mirror, Border::Replicate, Border::Zero, Border::MirrorRepeat};

PlaneOp with_border(PlaneOp op, Border b) {
    op.border = b;
    return op;
}

class CpuMatchesReference : public ::testing::TestWithParam<std::tuple<const char*, Size, Border, int>> {};

TEST_P(CpuMatchesReference, Exactly) {
    const auto [spec, size, border, depth] = GetParam();
    const PlaneOp op = with_border(build_chain(spec)[0].ops[0], border);
    // A fresh seed per case, printed on failure so the case can be replayed.
    const unsigned seed = static_cast<unsigned>(std::hash<std::string>{}(std::string(spec) + std::to_string(size.w) +
                                                                         std::to_string(size.h) + std::to_string(depth) +
                                                                         border_name(border)));
    std::mt19937 rng(seed);
    TestPlane src(size.w, size.h, depth), ref(size.w, size.h, depth), fast(size.w, size.h, depth),
        direct(size.w, size.h, depth), generic(size.w, size.h, depth);
    src.fill_random(rng);
    reference_apply(op, src.view(), ref.view());
    fast.poison();
    direct.poison();
    generic.poison();
    backend().apply(op, src.view(), fast.view(), true);
    backend().apply(op, src.view(), direct.view(), false);
    backend(CpuIsa::Generic).apply(op, src.view(), generic.view(), true);
    std::string where;
    EXPECT_EQ(count_differences(ref, fast, &where), 0) << spec << " seed " << seed << " first " << where;
    EXPECT_EQ(count_differences(ref, direct, &where), 0) << spec << " (direct) seed " << seed << " first " << where;
    EXPECT_EQ(count_differences(ref, generic, &where), 0) << spec << " (generic) seed " << seed << " first " << where;
    EXPECT_TRUE(fast.padding_intact());
    EXPECT_TRUE(direct.padding_intact());
    EXPECT_TRUE(generic.padding_intact());
}

INSTANTIATE_TEST_SUITE_P(AllFilters, CpuMatchesReference,
                         ::testing::Combine(::testing::ValuesIn(kSpecs), ::testing::ValuesIn(kSizes),
                                            ::testing::ValuesIn(kBorders), ::testing::Values(8, 10)));

// The reference itself, checked by hand on values where the answer is known.
TEST(Reference, SobelOfARampIsItsSlope) {
    TestPlane src(8, 6, 8), dst(8, 6, 8);
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 8; ++x) src.view().write(x, y, 10 * x);
    const PlaneOp op = build_chain("sobel")[0].ops[0];
    reference_apply(op, src.view(), dst.view());
    // Interior: gx = 4 * 20 = 80 (two columns apart, weights 1 2 1), gy = 0.
    EXPECT_EQ(dst.at(3, 2), 80);
    // Left edge, mirror: columns -1 and 1 are equal, so the gradient vanishes.
    EXPECT_EQ(dst.at(0, 2), 0);
}

TEST(Reference, RoundsAndClampsLikeFFmpeg) {
    TestPlane src(3, 3, 8), dst(3, 3, 8);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) src.view().write(x, y, 7);
    PlaneOp op = build_chain("convolution=m=0 0 0 0 1 0 0 0 0:rdiv=0.5")[0].ops[0];
    reference_apply(op, src.view(), dst.view());
    EXPECT_EQ(dst.at(1, 1), 4);  // 3.5 + 0.5 = 4.0 -> 4
    op = build_chain("convolution=m=0 0 0 0 -1 0 0 0 0:rdiv=1:bias=3")[0].ops[0];
    reference_apply(op, src.view(), dst.view());
    EXPECT_EQ(dst.at(1, 1), 0);  // -7 + 3 clamps to 0
    op = build_chain("convolution=m=0 0 0 0 100 0 0 0 0:rdiv=1")[0].ops[0];
    reference_apply(op, src.view(), dst.view());
    EXPECT_EQ(dst.at(1, 1), 255);
}

// FFmpeg's avgblur truncates each mean: 3x3 windows of 0 and 255 whose means are x.67 and x.33.
TEST(Reference, TruncatedMeansRoundDown) {
    TestPlane src(3, 3, 8), dst(3, 3, 8);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) src.view().write(x, y, x == 0 ? 255 : 0);
    PlaneOp down = build_chain("avgblur=1:round=down:border=replicate")[0].ops[0];
    PlaneOp nearest = build_chain("avgblur=1:border=replicate")[0].ops[0];
    reference_apply(down, src.view(), dst.view());
    EXPECT_EQ(dst.at(0, 1), 170);  // (6 x 255) / 9 = 170
    EXPECT_EQ(dst.at(1, 1), 85);   // 765 / 9 = 85 exactly
    EXPECT_EQ(dst.at(2, 1), 0);
    src.view().write(1, 1, 8);  // centre sum 773: 85.9 truncates to 85, rounds to 86
    reference_apply(down, src.view(), dst.view());
    EXPECT_EQ(dst.at(1, 1), 85);
    reference_apply(nearest, src.view(), dst.view());
    EXPECT_EQ(dst.at(1, 1), 86);
}

TEST(Reference, ZeroBorderReadsZeros) {
    TestPlane src(3, 3, 8), dst(3, 3, 8);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) src.view().write(x, y, 90);
    PlaneOp op = build_chain("box=radius=1:border=zero")[0].ops[0];
    reference_apply(op, src.view(), dst.view());
    EXPECT_EQ(dst.at(0, 0), 40);  // 4 of 9 taps inside: 360/9
    EXPECT_EQ(dst.at(1, 1), 90);
}

// nv12/p010 chroma: interleaved samples and MSB-aligned 10 bit go through the same code.
TEST(CpuBackend, InterleavedAndShiftedLayoutsMatchReference) {
    std::mt19937 rng(1234);
    for (const char* spec : {"gaussian=sigma=2", "sobel=planes=all", "convolution=m=1 2 3 4 5 6 7 8 9"}) {
        for (int offset : {0, 1}) {
            for (int shift : {0, 6}) {
                const int depth = shift ? 10 : 8;
                const PlaneOp op = build_chain(spec)[0].ops[0];
                TestPlane src(37, 21, depth, 2, offset, shift), ref(37, 21, depth, 2, offset, shift),
                    fast(37, 21, depth, 2, offset, shift);
                src.fill_random(rng);
                reference_apply(op, src.view(), ref.view());
                fast.poison();
                backend().apply(op, src.view(), fast.view());
                EXPECT_EQ(count_differences(ref, fast), 0) << spec << " offset " << offset << " shift " << shift;
                EXPECT_TRUE(fast.padding_intact()) << spec;
            }
        }
    }
}

TEST(CpuBackend, LargeKernelOnFullHdPlaneMatchesReferenceOnSampledRows) {
    std::mt19937 rng(99);
    const int w = 1919, h = 1079;
    TestPlane src(w, h, 8), fast(w, h, 8), ref(w, h, 8);
    src.fill_random(rng);
    fast.poison();
    const PlaneOp op = build_chain("gaussian=sigma=3.2")[0].ops[0];
    backend().apply(op, src.view(), fast.view());
    reference_apply(op, src.view(), ref.view());
    EXPECT_EQ(count_differences(ref, fast), 0);
}

}  // namespace
}  // namespace vf
