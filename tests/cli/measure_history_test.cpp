// MeasureHistory (app/serve/watch/measure_history.cpp): a watched stream's recent measures for the
// page's graphs are a ring of fixed size: at most one sample per step, the newest two minutes,
// oldest first, absent measures kept as null, and asked from a time on.
#include <gtest/gtest.h>

#include "app/serve/watch/measure_history.hpp"

namespace vf {
namespace {

watch::PictureMeasures measures(double luma, bool with_difference) {
    watch::PictureMeasures m;
    m.sharpness = luma * 2;
    m.luma_mean = luma;
    if (with_difference) m.difference = luma / 10;
    return m;
}

TEST(MeasureHistory, KeepsOneSampleAStepAndTheNewestWithinItsBound) {
    MeasureHistory h;
    const double t0 = 1767225600;
    // Ten measurements a second for five minutes: more than the ring holds, faster than its step.
    for (int i = 0; i < 3000; ++i) h.add(t0 + i * 0.1, measures(i % 256, i > 0));
    EXPECT_EQ(h.size(), MeasureHistory::kCapacity) << "bounded, whatever came";
    const nlohmann::json all = h.describe(0);
    ASSERT_GE(all["time"].size(), MeasureHistory::kKeptS / 0.3 - 1) << "one sample in three of a 0.1 s pace";
    const double newest = all["time"].back().get<double>(), oldest = all["time"][0].get<double>();
    EXPECT_NEAR(newest, t0 + 2999 * 0.1, 0.31) << "within one kept step of the last measure";
    EXPECT_NEAR(newest - oldest, MeasureHistory::kKeptS, 0.5) << "the last two minutes";
    for (size_t i = 1; i < all["time"].size(); ++i) {
        const double step = all["time"][i].get<double>() - all["time"][i - 1].get<double>();
        EXPECT_GE(step, MeasureHistory::kStepS * 0.9 - 1e-6) << i;
        EXPECT_LE(step, MeasureHistory::kStepS + 0.1 + 1e-6) << i;
    }
    for (const char* series : {"sharpness", "luma_mean", "difference", "edge_agreement"}) EXPECT_EQ(all[series].size(), all["time"].size()) << series;
    EXPECT_EQ(all["sharpness"].back().get<double>(), 2 * all["luma_mean"].back().get<double>());
    EXPECT_TRUE(all["edge_agreement"].back().is_null()) << "absent until a reference is learned";
    EXPECT_EQ(all["every_s"], MeasureHistory::kStepS);
    // From a time on: the last ten seconds hold about forty samples.
    const nlohmann::json recent = h.describe(newest - 10);
    EXPECT_NEAR(static_cast<double>(recent["time"].size()), 10 / 0.3, 2);
    EXPECT_GE(recent["time"][0].get<double>(), newest - 10);
    EXPECT_TRUE(h.describe(newest + 1)["time"].empty());
}

TEST(MeasureHistory, AFirstMeasureWithoutADifferenceIsNull) {
    MeasureHistory h;
    h.add(100, measures(50, false));
    h.add(100.3, measures(60, true));
    const nlohmann::json j = h.describe(0);
    ASSERT_EQ(j["difference"].size(), 2u);
    EXPECT_TRUE(j["difference"][0].is_null());
    EXPECT_DOUBLE_EQ(j["difference"][1].get<double>(), 6);
    EXPECT_DOUBLE_EQ(j["luma_mean"][1].get<double>(), 60);
}

}  // namespace
}  // namespace vf
