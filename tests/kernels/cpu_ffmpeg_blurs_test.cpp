// FFmpeg's own arithmetic for boxblur and unsharp (OpKind::BoxPasses, OpKind::UnsharpFixed): the
// fast CPU path equals the plain reference exactly on fresh random data, odd sizes, every border,
// 8, 10 and 16 bit, output poisoned first; and the reference equals FFmpeg 5.1's own C code for a
// line of boxblur (transcribed below) and its documented 1/256 effect of unsharp above 8 bits.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "config/filter_registry.hpp"
#include "kernels/cpu_backend.hpp"
#include "kernels/reference.hpp"
#include "support/random_plane.hpp"

namespace vf {
namespace {

using test::TestPlane;

PlaneOp box_op(int radius, int power, Border border) {
    PlaneOp op;
    op.kind = OpKind::BoxPasses;
    op.box.radius = radius;
    op.box.power = power;
    op.border = border;
    return op;
}

PlaneOp unsharp_op(int steps_x, int steps_y, int amount, Border border) {
    PlaneOp op;
    op.kind = OpKind::UnsharpFixed;
    op.unsharp = {steps_x, steps_y, amount};
    op.border = border;
    return op;
}

// Fast path (both instruction sets for unsharp's bands) against the reference on one case.
void expect_fast_equals_reference(const PlaneOp& op, int w, int h, int depth, const std::string& what) {
    static CpuBackend avx2(3, CpuIsa::Avx2), generic(3, CpuIsa::Generic);
    const unsigned seed = static_cast<unsigned>(std::hash<std::string>{}(what));
    std::mt19937 rng(seed);
    TestPlane src(w, h, depth), ref(w, h, depth), fast(w, h, depth), plain(w, h, depth);
    src.fill_random(rng);
    ref.poison();
    reference_apply(op, src.view(), ref.view());
    fast.poison();
    plain.poison();
    avx2.apply(op, src.view(), fast.view());
    generic.apply(op, src.view(), plain.view());
    std::string where;
    EXPECT_EQ(count_differences(ref, fast, &where), 0) << what << " seed " << seed << " first " << where;
    EXPECT_EQ(count_differences(ref, plain, &where), 0) << what << " (generic) seed " << seed << " first " << where;
    EXPECT_TRUE(fast.padding_intact() && plain.padding_intact() && ref.padding_intact()) << what;
}

constexpr Border kAllBorders[] = {Border::Mirror, Border::Replicate, Border::Zero, Border::Reflect};
struct Size {
    int w, h;
};
constexpr Size kSizes[] = {{1, 1}, {2, 3}, {7, 5}, {97, 61}, {33, 130}};

TEST(FfmpegBoxPasses, FastEqualsReference) {
    int cases = 0;
    for (const Size s : kSizes)
        for (Border b : kAllBorders)
            for (int depth : {8, 10, 16})
                for (const auto& [r, p] : {std::pair{1, 1}, {2, 1}, {2, 2}, {5, 3}, {17, 2}}) {
                    expect_fast_equals_reference(box_op(r, p, b), s.w, s.h, depth,
                                                 "boxblur " + std::to_string(r) + ":" + std::to_string(p) + " " + std::to_string(s.w) +
                                                     "x" + std::to_string(s.h) + " " + border_name(b) + " " + std::to_string(depth));
                    ++cases;
                }
    EXPECT_EQ(cases, 5 * 4 * 3 * 5);
}

TEST(FfmpegUnsharpFixed, FastEqualsReference) {
    struct Case {
        int sx, sy, amount;
    };
    // FATE's -1.5, the default 1, the extremes -2 and 5, a fraction (0.3 as FFmpeg's float: 19660),
    // windows from 3x3 to 23x3 and 11x11.
    const Case cases[] = {{5, 5, -98304}, {2, 2, 65536}, {1, 1, -131072}, {11, 1, 327680}, {3, 9, 19660}, {1, 4, 327680}};
    for (const Size s : kSizes)
        for (Border b : {Border::Mirror, Border::Replicate, Border::Zero})
            for (int depth : {8, 10, 16})
                for (const Case& c : cases)
                    expect_fast_equals_reference(unsharp_op(c.sx, c.sy, c.amount, b), s.w, s.h, depth,
                                                 "unsharp " + std::to_string(c.sx) + "," + std::to_string(c.sy) + " amount " +
                                                     std::to_string(c.amount) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) +
                                                     " " + border_name(b) + " " + std::to_string(depth));
}

// FFmpeg 5.1's blur() of libavfilter/vf_boxblur.c for one line of 8-bit samples, as it is
// written there (its int wrapping made explicit), and its blur_power().
void ffmpeg_blur(uint8_t* dst, const uint8_t* src, int len, int radius) {
    const int length = radius * 2 + 1;
    const int inv = ((1 << 16) + length / 2) / length;
    uint32_t sum = src[radius];
    int x;
    for (x = 0; x < radius; x++) sum += static_cast<uint32_t>(src[x] << 1);
    sum = sum * static_cast<uint32_t>(inv) + (1u << 15);
    for (x = 0; x <= radius; x++) {
        sum += static_cast<uint32_t>((src[radius + x] - src[radius - x]) * inv);
        dst[x] = static_cast<uint8_t>(static_cast<int32_t>(sum) >> 16);
    }
    for (; x < len - radius; x++) {
        sum += static_cast<uint32_t>((src[radius + x] - src[x - radius - 1]) * inv);
        dst[x] = static_cast<uint8_t>(static_cast<int32_t>(sum) >> 16);
    }
    for (; x < len; x++) {
        sum += static_cast<uint32_t>((src[2 * len - radius - x - 1] - src[x - radius - 1]) * inv);
        dst[x] = static_cast<uint8_t>(static_cast<int32_t>(sum) >> 16);
    }
}

TEST(FfmpegBoxPasses, ReferenceIsFfmpegsOwnCodeOnALine) {
    std::mt19937 rng(631);
    for (int len : {3, 5, 8, 61, 97})
        for (int radius = 1; 2 * radius < len; ++radius)
            for (int power : {1, 2, 3}) {
                std::vector<uint8_t> line(static_cast<size_t>(len)), a(line.size()), b(line.size());
                for (uint8_t& v : line) v = static_cast<uint8_t>(rng() & 0xFF);
                a = line;
                for (int p = 0; p < power; ++p) {
                    ffmpeg_blur(b.data(), a.data(), len, radius);
                    a = b;
                }
                // The reference on a one-row plane: the column passes of one sample change nothing.
                TestPlane src(len, 1, 8), dst(len, 1, 8);
                for (int x = 0; x < len; ++x) src.view().write(x, 0, line[static_cast<size_t>(x)]);
                reference_apply(box_op(radius, power, Border::Reflect), src.view(), dst.view());
                for (int x = 0; x < len; ++x)
                    ASSERT_EQ(dst.at(x, 0), a[static_cast<size_t>(x)]) << "len " << len << " radius " << radius << " power " << power << " x " << x;
            }
}

// FFmpeg 5.1 shifts unsharp's product by 24 above 8 bits where 8-bit samples shift by 16: the
// same picture sharpened by amount 5 moves a 10-bit sample by 1/256 of what it moves an 8-bit one.
TEST(FfmpegUnsharpFixed, AboveEightBitsTheEffectIsA256th) {
    for (int depth : {8, 10}) {
        TestPlane src(9, 9, depth), dst(9, 9, depth);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 9; ++x) src.view().write(x, y, 100);
        src.view().write(4, 4, 200);
        // 3x3 binomial window: the blur at the centre is (16 x 100 + 4 x 100) / 16 = 125.
        reference_apply(unsharp_op(1, 1, 5 * 65536, Border::Replicate), src.view(), dst.view());
        if (depth == 8) EXPECT_EQ(dst.at(4, 4), 255);      // 200 + 5 x 75 = 575, clipped
        else EXPECT_EQ(dst.at(4, 4), 200 + (75 * 5 * 65536 >> 24));  // 200 + 1
        EXPECT_EQ(dst.at(0, 0), 100);
    }
}

}  // namespace
}  // namespace vf
