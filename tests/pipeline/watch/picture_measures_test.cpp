// The picture measures (pipeline/watch/picture_measures.hpp) on pictures whose measures are known.
#include "pipeline/watch/picture_measures.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/synthetic_scene.hpp"

namespace vf::watch {
namespace {

LumaThumbnail flat(int w, int h, uint8_t v) {
    LumaThumbnail t;
    t.width = w;
    t.height = h;
    t.samples.assign(static_cast<size_t>(w) * h, v);
    return t;
}

TEST(PictureMeasures, FlatPictureHasNoSharpnessSpreadOrEdges) {
    const LumaThumbnail t = flat(40, 30, 77);
    EXPECT_EQ(laplacian_variance(t), 0);
    double mean = 0, spread = 0;
    luma_mean_and_spread(t, mean, spread);
    EXPECT_DOUBLE_EQ(mean, 77);
    EXPECT_DOUBLE_EQ(spread, 0);
    EXPECT_EQ(mean_edge_magnitude(edge_map(t)), 0);
}

TEST(PictureMeasures, CheckerboardHasItsKnownLaplacianAndSpread) {
    // 0 and 100 alternating: every inner Laplacian is +-400, so the variance is 160000.
    LumaThumbnail t = flat(41, 31, 0);
    for (int y = 0; y < t.height; ++y)
        for (int x = 0; x < t.width; ++x) t.samples[static_cast<size_t>(y) * t.width + x] = (x + y) % 2 ? 100 : 0;
    EXPECT_NEAR(laplacian_variance(t), 160000, 160000 * 1e-3);  // inner samples are not exactly half and half
    double mean = 0, spread = 0;
    luma_mean_and_spread(t, mean, spread);
    EXPECT_NEAR(mean, 50, 0.1);
    EXPECT_NEAR(spread, 50, 0.1);
}

TEST(PictureMeasures, DifferenceAndChangedFractionIgnoreAWholePictureShift) {
    LumaThumbnail a = flat(20, 10, 100), b = flat(20, 10, 130);
    EXPECT_DOUBLE_EQ(mean_absolute_difference(a, b), 30);
    EXPECT_DOUBLE_EQ(changed_fraction(a, b, 10), 0);  // light turned up: every sample moved alike
    b.samples[5] = 200;                                 // one sample moved 70 more than the rest
    EXPECT_DOUBLE_EQ(changed_fraction(a, b, 10), 1.0 / 200);
    EXPECT_DOUBLE_EQ(changed_fraction(a, a, 0), 0);
}

TEST(PictureMeasures, AgreementHoldsUnderLightAndNoiseAndFallsForCoverAndTurn) {
    test::SyntheticScene scene(320, 180, 3, 0.5);
    PictureMeasurer m;
    for (int i = 0; i < 20; ++i) {
        m.measure(scene.render_thumbnail({}), 10);
        m.learn_reference();
    }
    EXPECT_EQ(m.reference().maps_learned(), 20);
    test::SceneLook dim;
    dim.gain = 0.4;
    EXPECT_GT(*m.measure(scene.render_thumbnail(dim), 10).edge_agreement, 0.95);
    test::SceneLook turned;
    turned.shift_x = 320 / 3;
    EXPECT_LT(*m.measure(scene.render_thumbnail(turned), 10).edge_agreement, 0.2);
    test::SceneLook covered;
    covered.covered = true;
    const PictureMeasures c = m.measure(scene.render_thumbnail(covered), 10);
    EXPECT_LT(std::abs(*c.edge_agreement), 0.2);
    // Edge strength is the structure over the light: a cover loses it, dusk keeps it.
    const PictureMeasures plain = m.measure(scene.render_thumbnail({}), 10);
    EXPECT_LT(c.edge_strength, 0.1 * plain.edge_strength);
    EXPECT_NEAR(m.measure(scene.render_thumbnail(dim), 10).edge_strength, plain.edge_strength, 0.1 * plain.edge_strength);
}

TEST(PictureMeasures, FirstMeasurementHasNoDifferenceAndNoReference) {
    PictureMeasurer m;
    const PictureMeasures first = m.measure(flat(30, 20, 50), 10);
    EXPECT_FALSE(first.difference);
    EXPECT_FALSE(first.changed_fraction);
    EXPECT_FALSE(first.edge_agreement);
    const PictureMeasures second = m.measure(flat(30, 20, 52), 10);
    ASSERT_TRUE(second.difference);
    EXPECT_DOUBLE_EQ(*second.difference, 2);
    // Another size: nothing to compare with.
    EXPECT_FALSE(m.measure(flat(31, 20, 52), 10).difference);
}

}  // namespace
}  // namespace vf::watch
