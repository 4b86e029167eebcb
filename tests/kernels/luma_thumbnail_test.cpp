// The luma thumbnail (kernels/luma_thumbnail.hpp) against a naive loop over each cell, at odd
// sizes and several depths and layouts, with the output poisoned first.
#include "kernels/luma_thumbnail.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "support/random_plane.hpp"

namespace vf {
namespace {

// Each cell on its own: every sample it holds taken to 8 bits, summed, rounded half up.
std::vector<uint8_t> naive_thumbnail(const PlaneView& p, int factor) {
    const int tw = (p.width + factor - 1) / factor, th = (p.height + factor - 1) / factor;
    std::vector<uint8_t> out(static_cast<size_t>(tw) * th);
    for (int ty = 0; ty < th; ++ty)
        for (int tx = 0; tx < tw; ++tx) {
            long sum = 0, count = 0;
            for (int y = ty * factor; y < (ty + 1) * factor && y < p.height; ++y)
                for (int x = tx * factor; x < (tx + 1) * factor && x < p.width; ++x, ++count)
                    sum += p.read(x, y) >> (p.depth - 8);
            out[static_cast<size_t>(ty) * tw + tx] = static_cast<uint8_t>((sum + count / 2) / count);
        }
    return out;
}

TEST(LumaThumbnail, ShapeKeepsTheThumbnailAtMost320Wide) {
    const ThumbnailShape hd = thumbnail_shape(1920, 1080);
    EXPECT_EQ(hd.factor, 6);
    EXPECT_EQ(hd.width, 320);
    EXPECT_EQ(hd.height, 180);
    const ThumbnailShape small = thumbnail_shape(320, 240);
    EXPECT_EQ(small.factor, 1);
    EXPECT_EQ(small.width, 320);
    const ThumbnailShape odd = thumbnail_shape(321, 7);
    EXPECT_EQ(odd.factor, 2);
    EXPECT_EQ(odd.width, 161);
    EXPECT_EQ(odd.height, 4);
    const ThumbnailShape uhd = thumbnail_shape(3840, 2160);
    EXPECT_EQ(uhd.factor, 12);
    EXPECT_EQ(uhd.width, 320);
    EXPECT_EQ(thumbnail_shape(7679, 4321).width, 320);
    EXPECT_THROW(thumbnail_shape(0, 10), Error);
}

struct ThumbCase {
    int width, height, depth, step, shift;
};

TEST(LumaThumbnail, EqualsTheNaiveLoopAtOddSizes) {
    const ThumbCase cases[] = {
        {1920, 1080, 8, 1, 0}, {1921, 1081, 8, 1, 0}, {645, 361, 8, 1, 0}, {641, 3, 8, 1, 0}, {319, 17, 8, 1, 0},
        {1, 1, 8, 1, 0},       {977, 555, 10, 1, 0},  {977, 555, 10, 1, 6}, {1283, 719, 16, 1, 0},
        {963, 541, 8, 2, 0},  // interleaved, as a luma plane never is, to prove the step is honoured
    };
    unsigned seed = 65;
    for (const ThumbCase& c : cases) {
        const std::string name = std::to_string(c.width) + "x" + std::to_string(c.height) + " depth " + std::to_string(c.depth) +
                                 " step " + std::to_string(c.step) + " shift " + std::to_string(c.shift);
        test::TestPlane plane(c.width, c.height, c.depth, c.step, 0, c.shift);
        std::mt19937 rng(seed++);
        plane.fill_random(rng);
        const ThumbnailShape s = thumbnail_shape(c.width, c.height);
        const std::vector<uint8_t> expected = naive_thumbnail(plane.view(), s.factor);
        ASSERT_EQ(expected.size(), static_cast<size_t>(s.width) * s.height) << name;
        // Poisoned with a byte the thumbnail's bytes cannot all hold, plus a guard past the end.
        const uint8_t poison = test::poison_byte();
        std::vector<uint8_t> out(expected.size() + 16, poison);
        make_luma_thumbnail(plane.view(), out.data());
        for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(out[i], expected[i]) << name << " at sample " << i;
        for (size_t i = expected.size(); i < out.size(); ++i) ASSERT_EQ(out[i], poison) << name << ": wrote past the end";
        const LumaThumbnail t = make_luma_thumbnail(plane.view());
        EXPECT_EQ(t.width, s.width);
        EXPECT_EQ(t.height, s.height);
        EXPECT_EQ(t.samples, expected) << name;
    }
}

TEST(LumaThumbnail, RoundsHalfUpAndKeepsFlatPicturesExact) {
    // 640 wide: factor 2, so each cell holds a 10 and an 11 (one row): 10.5, rounded up to 11.
    test::TestPlane plane(640, 1, 8);
    for (int x = 0; x < 640; ++x) plane.view().write(x, 0, 10 + x % 2);
    const LumaThumbnail t = make_luma_thumbnail(plane.view());
    ASSERT_EQ(t.width, 320);
    for (int x = 0; x < t.width; ++x) EXPECT_EQ(t.at(x, 0), 11);
    // A flat 10-bit picture of 1023 is 255 everywhere, the last partial cells included.
    test::TestPlane high(1001, 37, 10);
    for (int y = 0; y < 37; ++y)
        for (int x = 0; x < 1001; ++x) high.view().write(x, y, 1023);
    for (uint8_t v : make_luma_thumbnail(high.view()).samples) ASSERT_EQ(v, 255);
}

}  // namespace
}  // namespace vf
