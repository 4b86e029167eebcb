// The watch's settings (pipeline/watch/watch_settings.hpp): checked with one line naming the
// field; overrides resolved over the defaults.
#include "pipeline/watch/watch_settings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "pipeline/watch/stream_watcher.hpp"

namespace vf::watch {
namespace {

std::string refusal(const WatchSettings& s) {
    try {
        check_watch_settings(s);
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "";
}

TEST(WatchSettings, DefaultsPassAndEveryConditionHasHysteresis) {
    EXPECT_EQ(refusal(WatchSettings{}), "");
    for (Condition c : kConditions) {
        const Hysteresis h = default_hysteresis(c);
        EXPECT_TRUE(h.side == Side::Below ? h.leave > h.enter : h.leave < h.enter) << condition_name(c);
    }
}

TEST(WatchSettings, OutOfRangeNamesTheField) {
    WatchSettings s;
    s.measure_rate_hz = 0.1;
    EXPECT_EQ(refusal(s), "watch.measure_rate_hz: 0.1 is out of range; allowed: 1 to 30");
    s = {};
    s.calibration_s = 5;
    EXPECT_NE(refusal(s).find("watch.calibration_s:"), std::string::npos);
    s = {};
    s.motion_noise_levels = 0;
    EXPECT_NE(refusal(s).find("watch.motion_noise_levels:"), std::string::npos);
    s = {};
    s.of(Condition::Moved).enter = 1.5;
    EXPECT_EQ(refusal(s), "watch.moved.enter: 1.5 is out of range; allowed: -1 to 1");
    s = {};
    s.of(Condition::Dark).leave_hold_s = -1;
    EXPECT_NE(refusal(s).find("watch.dark.leave_hold_s:"), std::string::npos);
    s = {};
    s.of(Condition::Motion).enter = std::nan("");
    EXPECT_NE(refusal(s).find("watch.motion.enter:"), std::string::npos);
    // A refusal is one line.
    EXPECT_EQ(refusal(s).find('\n'), std::string::npos);
}

TEST(WatchSettings, LeaveOnTheWrongSideOfEnterIsRefused) {
    WatchSettings s;
    s.of(Condition::Dark).enter = 50;
    s.of(Condition::Dark).leave = 40;
    EXPECT_EQ(refusal(s), "watch.dark.leave: 40 must be at least watch.dark.enter (50), so that the condition cannot flap");
    s = {};
    s.of(Condition::Bright).leave = 240;
    EXPECT_NE(refusal(s).find("watch.bright.leave: 240 must be at most watch.bright.enter (225)"), std::string::npos);
    // The watcher checks its settings too.
    EXPECT_THROW(StreamWatcher("cam", s), Error);
}

TEST(WatchSettings, AnEnterOverrideKeepsTheLeaveDistanceWithinRange) {
    ConditionSettings s;
    s.enter = 60;
    const Hysteresis dark = resolve_hysteresis(Condition::Dark, s, default_hysteresis(Condition::Dark));
    EXPECT_EQ(dark.enter, 60);
    EXPECT_EQ(dark.leave, 72);
    ConditionSettings moved;
    moved.enter = 0.9;
    EXPECT_EQ(resolve_hysteresis(Condition::Moved, moved, default_hysteresis(Condition::Moved)).leave, 1);
    ConditionSettings hold;
    hold.enter_hold_s = 5;
    EXPECT_EQ(resolve_hysteresis(Condition::Dark, hold, default_hysteresis(Condition::Dark)).enter_hold_s, 5);
}

}  // namespace
}  // namespace vf::watch
