// Running a camera's watch over synthetic footage (tests/support/synthetic_scene.hpp) at its
// measuring rate, for the watch tests: the events it raised, and checks on them.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pipeline/watch/stream_watcher.hpp"
#include "support/synthetic_scene.hpp"

namespace vf::watch::test {

// How the scene looks at a time: the plain scene under the lighting wobble unless a change says otherwise.
using LookAt = std::function<vf::test::SceneLook(double time)>;

// Measures the scene from `from` to `to` (seconds) at the watch's rate; the events raised.
inline std::vector<WatchEvent> run_footage(CameraWatch& watch, vf::test::SyntheticScene& scene, double from, double to,
                                           const LookAt& look) {
    std::vector<WatchEvent> events;
    const double step = watch.watcher().measure_interval_s();
    for (long i = static_cast<long>(from / step); i * step < to; ++i) {
        const double time = static_cast<double>(i) * step;
        for (WatchEvent& e : watch.observe(time, scene.render_thumbnail(look(time)))) events.push_back(e);
    }
    return events;
}

inline std::string describe(const std::vector<WatchEvent>& events) {
    std::string s;
    for (const WatchEvent& e : events)
        s += std::string(condition_name(e.kind)) + (e.entered ? " entered at " : " left at ") + std::to_string(e.time) +
             " (value " + std::to_string(e.value) + "); ";
    return s.empty() ? "no events" : s;
}

// The events of one kind.
inline std::vector<WatchEvent> of_kind(const std::vector<WatchEvent>& events, Condition kind) {
    std::vector<WatchEvent> out;
    for (const WatchEvent& e : events)
        if (e.kind == kind) out.push_back(e);
    return out;
}

// `kind` entered once within `bound` seconds after `change`, and left once after `change_ends`
// (within `leave_bound`); no other condition raised but motion at the two moments the picture
// jumps (a turned or covered camera moves every sample once).
inline void expect_condition_during(const std::vector<WatchEvent>& events, Condition kind, double change, double change_ends,
                                    double bound, double leave_bound) {
    const std::vector<WatchEvent> mine = of_kind(events, kind);
    ASSERT_EQ(mine.size(), 2u) << condition_name(kind) << ": " << describe(events);
    EXPECT_TRUE(mine[0].entered);
    EXPECT_GT(mine[0].time, change) << describe(events);
    EXPECT_LE(mine[0].time, change + bound) << describe(events);
    EXPECT_GE(mine[0].since, change) << describe(events);
    EXPECT_EQ(mine[0].stream, "cam");
    EXPECT_FALSE(mine[1].entered);
    EXPECT_GT(mine[1].time, change_ends) << describe(events);
    EXPECT_LE(mine[1].time, change_ends + leave_bound) << describe(events);
    for (const WatchEvent& e : events) {
        if (e.kind == kind) continue;
        EXPECT_EQ(e.kind, Condition::Motion) << describe(events);
        const bool at_a_jump = (e.since >= change && e.since <= change + 0.5) || (e.since >= change_ends && e.since <= change_ends + 0.5);
        if (e.entered) {
            EXPECT_TRUE(at_a_jump) << describe(events);
        }
    }
}

}  // namespace vf::watch::test
