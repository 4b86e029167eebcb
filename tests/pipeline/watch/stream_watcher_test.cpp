// A camera watching itself (pipeline/watch/stream_watcher.hpp) over synthetic footage that changes
// at known moments: each condition entered within its bound of the change (motion 0.5 s, the rest
// 2 s) and left after the change ends, nothing else raised. The footage is rendered at thumbnail
// size (the measures see nothing else), once at 1080p through the thumbnail.
#include "pipeline/watch/stream_watcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "pipeline/watch/watch_footage.hpp"

namespace vf::watch {
namespace {

using vf::test::SceneLook;
using vf::test::SyntheticScene;
using test::expect_condition_during;
using test::run_footage;

// The change starts between two measurements, so the bound includes the wait for the next one.
constexpr double kChange = 75.1, kChangeEnds = 95.1, kEnd = 110;
constexpr double kBound = 2.0, kMotionBound = 0.5, kLeaveBound = 3.0;

SceneLook plain(double time) {
    SceneLook l;
    l.gain = SyntheticScene::wobble(time);
    return l;
}

// A camera calibrated on 60 s of its plain scene, then shown `changed` from kChange to kChangeEnds.
std::vector<WatchEvent> watch_change(const std::function<void(SceneLook&, double)>& changed, unsigned seed = 11) {
    SyntheticScene scene(320, 180, seed, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    return run_footage(watch, scene, 0, kEnd, [&](double t) {
        SceneLook l = plain(t);
        if (t >= kChange && t < kChangeEnds) changed(l, t);
        return l;
    });
}

TEST(StreamWatcher, PictureGoingBlackIsDark) {
    const auto events = watch_change([](SceneLook& l, double) { l.black = true; });
    expect_condition_during(events, Condition::Dark, kChange, kChangeEnds, kBound, kLeaveBound);
    EXPECT_LT(test::of_kind(events, Condition::Dark)[0].value, 28);
}

TEST(StreamWatcher, OverexposedPictureIsBright) {
    const auto events = watch_change([](SceneLook& l, double) { l.gain *= 4; });
    expect_condition_during(events, Condition::Bright, kChange, kChangeEnds, kBound, kLeaveBound);
}

TEST(StreamWatcher, StrongBlurIsBlurred) {
    const auto events = watch_change([](SceneLook& l, double) { l.blur_radius = 2; });
    expect_condition_during(events, Condition::Blurred, kChange, kChangeEnds, kBound, kLeaveBound);
    EXPECT_LT(test::of_kind(events, Condition::Blurred)[0].value, 0.35);
}

TEST(StreamWatcher, FlatGreyPictureIsCovered) {
    const auto events = watch_change([](SceneLook& l, double) { l.covered = true; });
    expect_condition_during(events, Condition::Covered, kChange, kChangeEnds, kBound, kLeaveBound);
}

TEST(StreamWatcher, ViewShiftedByAThirdIsMoved) {
    const auto events = watch_change([](SceneLook& l, double) { l.shift_x = 320 / 3; });
    expect_condition_during(events, Condition::Moved, kChange, kChangeEnds, kBound, kLeaveBound);
    EXPECT_LT(test::of_kind(events, Condition::Moved)[0].value, 0.35);
}

TEST(StreamWatcher, SameBytesRepeatedIsFrozen) {
    SyntheticScene scene(320, 180, 12, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    LumaThumbnail still;
    std::vector<WatchEvent> events;
    const double step = watch.watcher().measure_interval_s();
    for (long i = 0; i * step < kEnd; ++i) {
        const double t = static_cast<double>(i) * step;
        LumaThumbnail picture = scene.render_thumbnail(plain(t));
        if (t >= kChange && t < kChangeEnds) {
            if (still.samples.empty()) still = picture;
            picture = still;
        }
        for (const WatchEvent& e : watch.observe(t, picture)) events.push_back(e);
    }
    expect_condition_during(events, Condition::Frozen, kChange, kChangeEnds, kBound, kLeaveBound);
}

// A frozen encoder sends the same picture, but each keyframe (one a second here, four
// measurements apart) encodes it a little differently, once. At 1080p that difference is over the
// calibrated threshold (0.023 levels against 0.013 measured through serve): here a fresh set of
// samples one level off, 1.8 times the threshold, under the leave threshold. Frozen all the same.
TEST(StreamWatcher, FrozenEncoderWhoseKeyframesDifferALittleIsFrozen) {
    SyntheticScene scene(320, 180, 13, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    LumaThumbnail still;
    std::mt19937 random(5);
    std::vector<WatchEvent> events;
    const double step = watch.watcher().measure_interval_s();
    long keyframe = -1;
    for (long i = 0; i * step < kEnd; ++i) {
        const double t = static_cast<double>(i) * step;
        LumaThumbnail picture = scene.render_thumbnail(plain(t));
        if (t >= kChange && t < kChangeEnds) {
            if (still.samples.empty()) still = picture;
            const long second = static_cast<long>(std::floor(t - kChange));
            if (second != keyframe) {  // a keyframe: a fresh set of samples a level off
                keyframe = second;
                const Hysteresis h = watch.watcher().hysteresis(Condition::Frozen);
                const size_t off = static_cast<size_t>(1.8 * h.enter * static_cast<double>(still.samples.size()));
                ASSERT_GT(off, 0u) << "calibrated threshold " << h.enter;
                std::vector<size_t> at(still.samples.size());
                std::iota(at.begin(), at.end(), size_t{0});
                std::shuffle(at.begin(), at.end(), random);
                for (size_t k = 0; k < off; ++k) still.samples[at[k]] = still.samples[at[k]] == 255 ? 254 : still.samples[at[k]] + 1;
            }
            picture = still;
        }
        for (const WatchEvent& e : watch.observe(t, picture)) events.push_back(e);
    }
    expect_condition_during(events, Condition::Frozen, kChange, kChangeEnds, kBound, kLeaveBound);
}

TEST(StreamWatcher, MovingObjectOnAStillBackgroundIsMotion) {
    // A square of 12 thumbnail samples (72 pixels at 1080p) crossing at 60 samples a second.
    const auto events = watch_change([](SceneLook& l, double t) {
        l.object_side = 12;
        l.object_y = 90;
        l.object_x = 20 + static_cast<int>((t - kChange) * 60) % 280;
    });
    const auto motion = test::of_kind(events, Condition::Motion);
    ASSERT_EQ(motion.size(), 2u) << test::describe(events);
    EXPECT_EQ(events.size(), 2u) << test::describe(events);
    EXPECT_TRUE(motion[0].entered);
    EXPECT_GT(motion[0].time, kChange);
    EXPECT_LE(motion[0].time, kChange + kMotionBound) << test::describe(events);
    EXPECT_FALSE(motion[1].entered);
    EXPECT_GT(motion[1].time, kChangeEnds);
    EXPECT_LE(motion[1].time, kChangeEnds + kLeaveBound);
}

// Over five minutes the light falls to a few percent: dark is entered once, when the picture's
// mean has gone below its threshold, and nothing else is raised on the way.
TEST(StreamWatcher, SlowDuskIsDarkOnlyWhenDark) {
    SyntheticScene scene(320, 180, 13, 0.5);
    CameraWatch watch("cam", WatchSettings{});
    const double dusk = 70, night = 370;
    std::vector<WatchEvent> events;
    double first_dark = -1;
    const double step = watch.watcher().measure_interval_s();
    for (long i = 0; i * step < night + 30; ++i) {
        const double t = static_cast<double>(i) * step;
        SceneLook l = plain(t);
        if (t > dusk) l.gain *= std::exp(std::log(0.03) * std::min(1.0, (t - dusk) / (night - dusk)));
        for (const WatchEvent& e : watch.observe(t, scene.render_thumbnail(l))) events.push_back(e);
        if (first_dark < 0 && watch.last_measures().luma_mean < 28) first_dark = t;
    }
    ASSERT_EQ(events.size(), 1u) << test::describe(events);
    EXPECT_EQ(events[0].kind, Condition::Dark);
    EXPECT_TRUE(events[0].entered);
    ASSERT_GT(first_dark, dusk);
    EXPECT_GE(events[0].since, first_dark);
    EXPECT_LE(events[0].time, first_dark + kBound);
}

// The whole way at 1080p: frames with sensor noise, thumbnails made by make_luma_thumbnail, a
// short calibration, then the view turned by a third.
TEST(StreamWatcher, FullHdFramesThroughTheThumbnailShowAMove) {
    SyntheticScene scene(1920, 1080, 14, 2.0);
    WatchSettings settings;
    settings.calibration_s = 10;
    CameraWatch watch("cam", settings);
    const double change = 15.1, end = 22;
    std::vector<WatchEvent> events;
    for (long i = 0; i * 0.25 < end; ++i) {
        const double t = static_cast<double>(i) * 0.25;
        SceneLook l = plain(t);
        if (t >= change) l.shift_x = 1920 / 3;
        std::vector<uint8_t> frame = scene.render(l);
        PlaneView luma;
        luma.data = frame.data();
        luma.pitch = 1920;
        luma.width = 1920;
        luma.height = 1080;
        const LumaThumbnail thumbnail = make_luma_thumbnail(luma);
        ASSERT_EQ(thumbnail.width, 320);
        for (const WatchEvent& e : watch.observe(t, thumbnail)) events.push_back(e);
    }
    const auto moved = test::of_kind(events, Condition::Moved);
    ASSERT_EQ(moved.size(), 1u) << test::describe(events);
    EXPECT_TRUE(moved[0].entered);
    EXPECT_GT(moved[0].time, change);
    EXPECT_LE(moved[0].time, change + kBound);
    for (const WatchEvent& e : events) EXPECT_TRUE(e.kind == Condition::Moved || e.kind == Condition::Motion) << test::describe(events);
}

TEST(StreamWatcher, ADisabledConditionIsNeverRaised) {
    SyntheticScene scene(320, 180, 15, 0.5);
    WatchSettings settings;
    settings.of(Condition::Dark).enabled = false;
    CameraWatch watch("cam", settings);
    const auto events = run_footage(watch, scene, 0, 20, [](double t) {
        SceneLook l = plain(t);
        l.black = t > 5;
        return l;
    });
    EXPECT_TRUE(test::of_kind(events, Condition::Dark).empty()) << test::describe(events);
}

}  // namespace
}  // namespace vf::watch
