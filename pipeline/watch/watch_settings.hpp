// What a user may set of a stream's watch (stream_watcher.hpp): the measuring rate, the
// calibration period, and per condition its thresholds and hold times. Every field is optional:
// unset, it takes the default below (for blurred, covered and frozen one that the stream's
// calibration scales). Filled once, typed, at whichever door the stream came in; checked by
// check_watch_settings before use.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace vf::watch {

enum class Condition { Blurred, Covered, Frozen, Dark, Bright, Moved, Motion };
constexpr int kConditionCount = 7;
constexpr std::array<Condition, kConditionCount> kConditions = {Condition::Blurred, Condition::Covered, Condition::Frozen,
                                                                Condition::Dark,    Condition::Bright,  Condition::Moved,
                                                                Condition::Motion};
const char* condition_name(Condition c);

// Which side of its thresholds a condition's measure is on while the condition holds.
enum class Side { Below, Above };

// A condition is entered once its measure has been past `enter` (strictly) for `enter_hold_s`,
// and left once it has been back past `leave` (strictly) for `leave_hold_s`. `leave` lies on the
// far side of `enter` (or equals it), so a measure wandering about one threshold cannot flap.
struct Hysteresis {
    Side side = Side::Below;
    double enter = 0, leave = 0;
    double enter_hold_s = 1, leave_hold_s = 2;
};

// One condition's overrides.
struct ConditionSettings {
    std::optional<bool> enabled;
    std::optional<double> enter, leave;
    std::optional<double> enter_hold_s, leave_hold_s;
};

struct WatchSettings {
    std::optional<double> measure_rate_hz;  // thumbnails measured a second
    std::optional<double> calibration_s;    // the period whose pictures set the calibrated defaults
    std::optional<int> motion_noise_levels;  // a sample's change (8-bit levels) that is not yet motion
    std::array<ConditionSettings, kConditionCount> conditions;

    ConditionSettings& of(Condition c) { return conditions[static_cast<int>(c)]; }
    const ConditionSettings& of(Condition c) const { return conditions[static_cast<int>(c)]; }
};

// The defaults, and the units each condition's thresholds are in (docs/serve.md):
constexpr double kDefaultMeasureRateHz = 4;
constexpr double kDefaultCalibrationS = 60;
constexpr int kDefaultMotionNoiseLevels = 10;
// blurred: the sharpness over the luma variance, as a fraction of its calibrated median.
// covered: the edge strength, as a fraction of its calibrated median.
// frozen: the mean absolute difference (levels); its default enter threshold is the smaller of
//   kFrozenMaxEnter and kFrozenShareOfCalibrated of the calibrated median difference.
// dark, bright: the luma mean (levels). moved: the edge agreement (-1..1). motion: the changed fraction.
Hysteresis default_hysteresis(Condition c);
constexpr double kFrozenMaxEnter = 0.05;
constexpr double kFrozenShareOfCalibrated = 0.1;
// frozen is judged on the median difference of the last kFrozenWindow measurements: a frozen
// encoder's keyframes still differ a little from the pictures before them, once each.
constexpr int kFrozenWindow = 3;
// motion: its leave threshold is kMotionLeaveOverNoise times the calibration's 90th percentile of
// the changed fraction (the camera's noise, which a still scene has at every sample), kept within
// the default and kMotionMostLeave; its enter threshold at least twice the leave one.
constexpr double kMotionLeaveOverNoise = 1.5;
constexpr double kMotionMostLeave = 0.0015;

// Throws Error(Usage) with one line naming the first field out of range (as
// "watch.<condition>.<field>") and what is allowed.
void check_watch_settings(const WatchSettings& s);

// A condition's hysteresis: the override where set, else `fallback` (the default, calibrated or not).
Hysteresis resolve_hysteresis(Condition c, const ConditionSettings& s, const Hysteresis& fallback);

}  // namespace vf::watch
