// What a camera's first minute calibrates (pipeline/watch/stream_watcher.hpp): a camera judged
// against itself, and a user's thresholds over the calibrated defaults.
#include "pipeline/watch/stream_watcher.hpp"

#include <gtest/gtest.h>

#include "pipeline/watch/watch_footage.hpp"

namespace vf::watch {
namespace {

using vf::test::SceneLook;
using vf::test::SyntheticScene;

SceneLook lit_by_wobble(double time) {
    SceneLook l;
    l.gain = SyntheticScene::wobble(time);
    return l;
}

// A camera whose lens is soft from the start is not blurred: its sharpness is its own normal. It
// still is once it gets softer still.
TEST(StreamWatcherCalibration, AlwaysSoftCameraIsNotBlurredUntilItGetsSofter) {
    SyntheticScene scene(320, 180, 31, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    const auto events = test::run_footage(watch, scene, 0, 120, [](double t) {
        SceneLook l = lit_by_wobble(t);
        l.blur_radius = t < 100 ? 1 : 4;
        return l;
    });
    const auto blurred = test::of_kind(events, Condition::Blurred);
    ASSERT_EQ(blurred.size(), 1u) << test::describe(events);
    EXPECT_TRUE(blurred[0].entered);
    EXPECT_GT(blurred[0].time, 100);
    EXPECT_LE(blurred[0].time, 102);
}

// A picture that did not change at all while calibrating (a test pattern) gives no measure of
// how still a frozen camera is: frozen is never judged, even when the same bytes come again.
TEST(StreamWatcherCalibration, CameraThatNeverChangedWhileCalibratingIsNeverFrozen) {
    SyntheticScene scene(320, 180, 32, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    const LumaThumbnail still = scene.render_thumbnail({});
    std::vector<WatchEvent> events;
    for (long i = 0; i * 0.25 < 100; ++i) {
        const double t = static_cast<double>(i) * 0.25;
        const bool live = t >= 60 && t < 80;
        for (const WatchEvent& e : watch.observe(t, live ? scene.render_thumbnail(lit_by_wobble(t)) : still)) events.push_back(e);
    }
    EXPECT_TRUE(test::of_kind(events, Condition::Frozen).empty()) << test::describe(events);
    EXPECT_EQ(watch.watcher().hysteresis(Condition::Frozen).enter, 0);
}

// The calibrated frozen threshold sits below the camera's own noise, never above the cap.
TEST(StreamWatcherCalibration, FrozenThresholdFollowsTheCameraNoise) {
    for (double noise : {0.3, 3.0}) {
        SyntheticScene scene(320, 180, 33, noise);
        CameraWatch watch("cam", WatchSettings{});
        test::run_footage(watch, scene, 0, 61, lit_by_wobble);
        const Hysteresis h = watch.watcher().hysteresis(Condition::Frozen);
        EXPECT_GT(h.enter, 0) << noise;
        EXPECT_LE(h.enter, kFrozenMaxEnter) << noise;
        EXPECT_LT(h.enter, watch.last_measures().difference.value_or(0)) << noise;
        EXPECT_DOUBLE_EQ(h.leave, 2 * h.enter);
    }
}

// Motion's thresholds sit above what the camera's noise alone changes (else a noisy camera, once
// in motion, never leaves it), within their bounds; a quiet camera keeps the defaults.
TEST(StreamWatcherCalibration, MotionThresholdsFollowTheCameraNoise) {
    const Hysteresis defaults = default_hysteresis(Condition::Motion);
    for (double noise : {0.3, 9.0}) {
        SyntheticScene scene(320, 180, 35, noise);
        CameraWatch watch("cam", WatchSettings{});
        double most = 0;
        const auto events = test::run_footage(watch, scene, 0, 90, [&watch, &most](double t) {
            if (t > 61) most = std::max(most, watch.last_measures().changed_fraction.value_or(0));
            return lit_by_wobble(t);
        });
        const Hysteresis h = watch.watcher().hysteresis(Condition::Motion);
        EXPECT_GE(h.leave, defaults.leave) << noise;
        EXPECT_LE(h.leave, kMotionMostLeave) << noise;
        EXPECT_GE(h.enter, std::max(defaults.enter, 2 * h.leave)) << noise;
        if (noise < 1) EXPECT_EQ(h.leave, defaults.leave);
        else EXPECT_GT(h.leave, defaults.leave) << "the noise changes samples past the noise levels: " << most;
        EXPECT_TRUE(test::of_kind(events, Condition::Motion).empty() || noise > 1) << test::describe(events);
    }
}

// A user's thresholds replace the defaults: dark at a mean below 60, entered after 3 s.
TEST(StreamWatcherCalibration, UserThresholdsOverrideTheDefaults) {
    SyntheticScene scene(320, 180, 34, 0.5);
    WatchSettings settings;
    settings.of(Condition::Dark).enter = 60;
    settings.of(Condition::Dark).enter_hold_s = 3;
    CameraWatch watch("cam", settings);
    const auto events = test::run_footage(watch, scene, 0, 90, [](double t) {
        SceneLook l = lit_by_wobble(t);
        if (t >= 70.1) l.gain *= 0.45;  // a mean of about 47: dark by this stream's threshold, not by the default
        return l;
    });
    const auto dark = test::of_kind(events, Condition::Dark);
    ASSERT_EQ(dark.size(), 1u) << test::describe(events);
    EXPECT_TRUE(dark[0].entered);
    EXPECT_GE(dark[0].time, 73.1);
    EXPECT_LE(dark[0].time, 73.1 + 0.25);
    EXPECT_LT(dark[0].value, 60);
    EXPECT_GT(dark[0].value, 40);
    // The light's step moved samples unevenly (motion, once); nothing else.
    for (const WatchEvent& e : events) EXPECT_TRUE(e.kind == Condition::Dark || e.kind == Condition::Motion) << test::describe(events);
}

}  // namespace
}  // namespace vf::watch
