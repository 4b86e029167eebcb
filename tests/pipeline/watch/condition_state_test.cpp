// One condition's hysteresis (pipeline/watch/condition_state.hpp): entered after its hold past the
// enter threshold, left after its hold past the leave threshold, never flapping in between.
#include "pipeline/watch/condition_state.hpp"

#include <gtest/gtest.h>

namespace vf::watch {
namespace {

const Hysteresis kBelow{Side::Below, 10, 20, 1.0, 2.0};

TEST(ConditionState, EntersAfterItsHoldAndReportsWhenItBegan) {
    ConditionState s(kBelow);
    EXPECT_FALSE(s.observe(0.0, 15));
    EXPECT_FALSE(s.observe(0.25, 5));  // the hold starts here
    EXPECT_FALSE(s.observe(0.5, 5));
    EXPECT_FALSE(s.observe(1.0, 5));
    const auto t = s.observe(1.25, 4);
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->entered);
    EXPECT_DOUBLE_EQ(t->time, 1.25);
    EXPECT_DOUBLE_EQ(t->since, 0.25);
    EXPECT_DOUBLE_EQ(t->value, 4);
    EXPECT_TRUE(s.active());
}

TEST(ConditionState, ABlipShorterThanTheHoldEntersNothing) {
    ConditionState s(kBelow);
    for (int i = 0; i < 400; ++i) {
        const double time = i * 0.25;
        EXPECT_FALSE(s.observe(time, i % 4 == 0 ? 0 : 50)) << time;  // below for one measurement in four
    }
    EXPECT_FALSE(s.active());
}

TEST(ConditionState, AMeasureBetweenTheThresholdsNeverFlaps) {
    ConditionState s(kBelow);
    double time = 0;
    for (; time < 2; time += 0.25) s.observe(time, 0);
    ASSERT_TRUE(s.active());
    // Wandering about the enter threshold, below the leave threshold: stays entered.
    for (int i = 0; i < 200; ++i, time += 0.25) EXPECT_FALSE(s.observe(time, i % 2 ? 9 : 19)) << time;
    EXPECT_TRUE(s.active());
    // Past the leave threshold for its hold: left once.
    int left = 0;
    for (int i = 0; i < 20; ++i, time += 0.25)
        if (const auto t = s.observe(time, 21)) {
            EXPECT_FALSE(t->entered);
            EXPECT_DOUBLE_EQ(t->time - t->since, 2.0);
            ++left;
        }
    EXPECT_EQ(left, 1);
    EXPECT_FALSE(s.active());
}

TEST(ConditionState, AboveSideAndZeroHoldEnterAtOnce) {
    ConditionState s({Side::Above, 0.5, 0.1, 0, 1});
    EXPECT_FALSE(s.observe(0, 0.5));  // strictly past
    const auto t = s.observe(0.25, 0.6);
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->entered);
    EXPECT_FALSE(s.observe(0.5, 0.3));  // between: still entered
    EXPECT_FALSE(s.observe(0.75, 0.05));
    const auto left = s.observe(1.75, 0.05);
    ASSERT_TRUE(left);
    EXPECT_FALSE(left->entered);
}

// Measurements come a little early or late (each takes the next frame after it is due): a hold
// completes at the measurement within half an interval of its end, not one interval later.
TEST(ConditionState, AHoldCompletesAtTheMeasurementNearestItsEnd) {
    ConditionState s(kBelow);
    s.set_measuring_interval(0.25);
    EXPECT_FALSE(s.observe(0.0, 5));  // the hold starts here
    EXPECT_FALSE(s.observe(0.24, 5));
    EXPECT_FALSE(s.observe(0.48, 5));
    EXPECT_FALSE(s.observe(0.72, 5));
    const auto t = s.observe(0.96, 5);
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->entered);
    EXPECT_DOUBLE_EQ(t->time, 0.96);
    // Never more than half an interval short: 1.8 s of a 2 s leave hold's 1.875 is not enough.
    for (double time : {1.0, 1.5, 2.0, 2.8}) EXPECT_FALSE(s.observe(time, 25)) << time;
    EXPECT_TRUE(s.active());
    EXPECT_TRUE(s.observe(2.875, 25));
    EXPECT_FALSE(s.active());
}

// A hold no longer than half an interval (a slow rate) still needs a second measurement.
TEST(ConditionState, AShortHoldAtASlowRateStillWantsTwoMeasurements) {
    ConditionState s({Side::Below, 10, 20, 0.4, 2.0});
    s.set_measuring_interval(1.0);
    EXPECT_FALSE(s.observe(0.0, 5));
    EXPECT_TRUE(s.observe(1.0, 5));
}

TEST(ConditionState, HoldOffRestartsTheHold) {
    ConditionState s(kBelow);
    s.observe(0, 0);
    s.observe(0.75, 0);
    s.hold_off();
    EXPECT_FALSE(s.observe(1.0, 0));  // the hold starts again here
    EXPECT_FALSE(s.observe(1.75, 0));
    EXPECT_TRUE(s.observe(2.0, 0));
}

}  // namespace
}  // namespace vf::watch
