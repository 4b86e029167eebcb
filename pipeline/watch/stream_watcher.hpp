// A stream that watches itself: fed its picture measures (picture_measures.hpp) a few times a
// second, it keeps the conditions blurred, covered, frozen, dark, bright, moved and motion, each
// with hysteresis (condition_state.hpp), and says when each is entered or left, as events.
//
// The stream's first calibration_s seconds of pictures calibrate the defaults that depend on the
// camera: the median of its sharpness (over its luma variance, so that light does not move it) and
// of its edge strength, against which blurred and covered are judged (a camera that is always soft
// is not blurred), the median difference between measurements, which sets how still a frozen
// picture must be, and the reference edge map that moved is judged against. Those three
// conditions are judged once calibration is over, and only while the picture is neither dark nor
// bright; moved also only while the picture still has its structure (not covered, not blurred):
// a cover and a soft focus also move the edges, and are reported as themselves.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "kernels/luma_thumbnail.hpp"
#include "pipeline/watch/condition_state.hpp"
#include "pipeline/watch/picture_measures.hpp"
#include "pipeline/watch/watch_settings.hpp"

namespace vf::watch {

struct WatchEvent {
    std::string stream;
    Condition kind = Condition::Dark;
    bool entered = false;  // false: left
    double time = 0;       // when the condition was entered or left (its hold complete), seconds
    double since = 0;      // when its measure first went past the threshold
    double value = 0;      // the measure that decided, in the units of its thresholds (watch_settings.hpp)
};

class StreamWatcher {
public:
    // `settings` checked here (check_watch_settings).
    StreamWatcher(std::string stream, const WatchSettings& settings);

    // The measures of the picture at `time` (seconds on any clock, never decreasing); the events
    // they complete, in the order of kConditions.
    std::vector<WatchEvent> observe(double time, const PictureMeasures& m);

    // Whether a picture at `time` still belongs to the calibration period.
    bool calibrating(double time) const;
    bool active(Condition c) const { return states_[static_cast<int>(c)].active(); }
    const Hysteresis& hysteresis(Condition c) const { return states_[static_cast<int>(c)].hysteresis(); }
    double measure_interval_s() const { return 1.0 / rate_hz_; }
    int motion_noise_levels() const { return noise_levels_; }

private:
    void collect_calibration(const PictureMeasures& m);
    void finish_calibration();
    // The value of each condition's measure now, and whether it may be judged at all.
    void judge(const PictureMeasures& m, std::array<double, kConditionCount>& value,
               std::array<bool, kConditionCount>& judged) const;

    std::string stream_;
    WatchSettings settings_;
    double rate_hz_, calibration_s_;
    int noise_levels_;
    std::array<ConditionState, kConditionCount> states_;
    bool started_ = false, calibrated_ = false;
    double start_ = 0;
    std::vector<double> sharpness_ratios_, edge_strengths_, differences_, changed_fractions_;
    double median_sharpness_ratio_ = 0, median_edge_strength_ = 0;
    // The last recent_held_ (at most kFrozenWindow) differences, the newest first:
    // frozen is judged on their median (stream_watcher.cpp says why).
    std::array<double, kFrozenWindow> recent_differences_{};
    int recent_held_ = 0;
};

// A stream's measurer and watcher together, fed its luma thumbnails.
class CameraWatch {
public:
    CameraWatch(std::string stream, const WatchSettings& settings);

    std::vector<WatchEvent> observe(double time, const LumaThumbnail& thumbnail);

    const PictureMeasures& last_measures() const { return last_; }
    const StreamWatcher& watcher() const { return watcher_; }

private:
    StreamWatcher watcher_;
    PictureMeasurer measurer_;
    PictureMeasures last_;
};

}  // namespace vf::watch
