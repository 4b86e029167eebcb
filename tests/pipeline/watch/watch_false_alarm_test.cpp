// No false alarm over an hour of unchanged footage: 14,400 measurements at the default rate of a
// still scene with sensor noise, a lighting wobble and a slow passing cloud, rendered at
// thumbnail size; not one event.
#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/watch/watch_footage.hpp"

namespace vf::watch {
namespace {

TEST(StreamWatcherFalseAlarms, NoneOverAnHourOfUnchangedFootage) {
    // One hour of one scene: the sanitizer run of CI pays about a minute for it.
    for (unsigned seed : {21u}) {
        vf::test::SyntheticScene scene(320, 180, seed, 0.7);
        CameraWatch watch("cam", WatchSettings{});
        ASSERT_DOUBLE_EQ(watch.watcher().measure_interval_s(), 0.25);
        long measured = 0;
        const auto events = test::run_footage(watch, scene, 0, 3600, [&](double t) {
            ++measured;
            vf::test::SceneLook l;
            l.gain = vf::test::SyntheticScene::wobble(t) * (1.0 + 0.15 * std::sin(t * 2 * M_PI / 900.0));
            return l;
        });
        EXPECT_EQ(measured, 14400);
        EXPECT_TRUE(events.empty()) << "seed " << seed << ": " << test::describe(events);
        EXPECT_FALSE(watch.watcher().calibrating(3600));
    }
}

}  // namespace
}  // namespace vf::watch
