#include "pipeline/watch/stream_watcher.hpp"

#include <algorithm>
#include <utility>

namespace vf::watch {
namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    return v[mid];
}

double percentile(std::vector<double> v, double share) {
    if (v.empty()) return 0;
    const size_t at = std::min(v.size() - 1, static_cast<size_t>(share * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
    return v[at];
}

int index(Condition c) { return static_cast<int>(c); }

// The median of the first `held` (1 to 3) values, the newest first; of two, the larger.
static_assert(kFrozenWindow == 3);
double median_of_up_to_three(const std::array<double, kFrozenWindow>& v, int held) {
    if (held <= 1) return v[0];
    if (held == 2) return std::max(v[0], v[1]);
    return std::max(std::min(v[0], v[1]), std::min(std::max(v[0], v[1]), v[2]));
}

// Sharpness over the luma variance: the same under any light, since both scale with its square.
// Absent for a picture too flat to have any.
bool sharpness_ratio(const PictureMeasures& m, double& ratio) {
    const double variance = m.luma_spread * m.luma_spread;
    if (variance < 1) return false;
    ratio = m.sharpness / variance;
    return true;
}

}  // namespace

StreamWatcher::StreamWatcher(std::string stream, const WatchSettings& settings)
    : stream_(std::move(stream)), settings_(settings) {
    check_watch_settings(settings_);
    rate_hz_ = settings_.measure_rate_hz.value_or(kDefaultMeasureRateHz);
    calibration_s_ = settings_.calibration_s.value_or(kDefaultCalibrationS);
    noise_levels_ = settings_.motion_noise_levels.value_or(kDefaultMotionNoiseLevels);
    for (Condition c : kConditions) {
        states_[index(c)].set_hysteresis(resolve_hysteresis(c, settings_.of(c), default_hysteresis(c)));
        states_[index(c)].set_measuring_interval(measure_interval_s());
    }
}

bool StreamWatcher::calibrating(double time) const { return !calibrated_ && (!started_ || time - start_ < calibration_s_); }

void StreamWatcher::collect_calibration(const PictureMeasures& m) {
    double ratio = 0;
    if (sharpness_ratio(m, ratio)) sharpness_ratios_.push_back(ratio);
    edge_strengths_.push_back(m.edge_strength);
    if (m.difference) differences_.push_back(*m.difference);
    if (m.changed_fraction) changed_fractions_.push_back(*m.changed_fraction);
}

void StreamWatcher::finish_calibration() {
    calibrated_ = true;
    median_sharpness_ratio_ = median(std::move(sharpness_ratios_));
    median_edge_strength_ = median(std::move(edge_strengths_));
    // How still a frozen picture is: well below the camera's usual difference between
    // measurements (its noise, at least), and never above kFrozenMaxEnter. A camera whose picture
    // did not change at all while calibrating gets 0, and is never judged frozen.
    Hysteresis frozen = default_hysteresis(Condition::Frozen);
    frozen.enter = std::min(kFrozenMaxEnter, kFrozenShareOfCalibrated * median(std::move(differences_)));
    frozen.leave = 2 * frozen.enter;
    states_[index(Condition::Frozen)].set_hysteresis(
        resolve_hysteresis(Condition::Frozen, settings_.of(Condition::Frozen), frozen));
    // Motion leaves once the picture changes no more than its noise does: a noisy camera's samples
    // past the noise levels would otherwise keep it in motion for ever. Bounded, so that a scene
    // busy while calibrating still shows motion.
    Hysteresis motion = default_hysteresis(Condition::Motion);
    motion.leave = std::clamp(kMotionLeaveOverNoise * percentile(std::move(changed_fractions_), 0.9), motion.leave, kMotionMostLeave);
    motion.enter = std::max(motion.enter, 2 * motion.leave);
    states_[index(Condition::Motion)].set_hysteresis(resolve_hysteresis(Condition::Motion, settings_.of(Condition::Motion), motion));
    sharpness_ratios_ = {};
    edge_strengths_ = {};
    differences_ = {};
    changed_fractions_ = {};
}

void StreamWatcher::judge(const PictureMeasures& m, std::array<double, kConditionCount>& value,
                          std::array<bool, kConditionCount>& judged) const {
    judged.fill(false);
    value.fill(0);
    value[index(Condition::Dark)] = value[index(Condition::Bright)] = m.luma_mean;
    judged[index(Condition::Dark)] = judged[index(Condition::Bright)] = true;
    if (m.changed_fraction) value[index(Condition::Motion)] = *m.changed_fraction, judged[index(Condition::Motion)] = true;
    if (!calibrated_) return;
    // A frozen encoder still sends a keyframe each group of pictures, and it differs from the
    // pictures before it by a little more than a 1080p camera's noise averaged into the thumbnail
    // (0.023 levels against a threshold near 0.013): once per keyframe, so the median of the last
    // three differences passes over it (down to a keyframe every third measurement). The median,
    // not the smallest: a live camera that sends an unchanged picture now and then (an encoder
    // that skips still scenes) needs two such in three to look frozen, not one.
    if (m.difference) {
        value[index(Condition::Frozen)] = median_of_up_to_three(recent_differences_, recent_held_);
        judged[index(Condition::Frozen)] = true;
    }
    // Neither dark nor bright: past the leave thresholds, so that a dusk judges nothing on its way down.
    const bool lit = m.luma_mean > hysteresis(Condition::Dark).leave && m.luma_mean < hysteresis(Condition::Bright).leave;
    if (!lit) return;
    if (median_edge_strength_ > 0) {
        value[index(Condition::Covered)] = m.edge_strength / median_edge_strength_;
        judged[index(Condition::Covered)] = true;
    }
    const bool structure = judged[index(Condition::Covered)] && value[index(Condition::Covered)] > hysteresis(Condition::Covered).leave;
    double ratio = 0;
    if (structure && median_sharpness_ratio_ > 0 && sharpness_ratio(m, ratio)) {
        value[index(Condition::Blurred)] = ratio / median_sharpness_ratio_;
        judged[index(Condition::Blurred)] = true;
    }
    const bool sharp = judged[index(Condition::Blurred)] && value[index(Condition::Blurred)] > hysteresis(Condition::Blurred).leave;
    if (sharp && m.edge_agreement) value[index(Condition::Moved)] = *m.edge_agreement, judged[index(Condition::Moved)] = true;
}

std::vector<WatchEvent> StreamWatcher::observe(double time, const PictureMeasures& m) {
    if (!started_) started_ = true, start_ = time;
    if (!calibrated_) {
        if (calibrating(time)) collect_calibration(m);
        else finish_calibration();
    }
    if (m.difference) {
        std::copy_backward(recent_differences_.begin(), recent_differences_.end() - 1, recent_differences_.end());
        recent_differences_[0] = *m.difference;
        recent_held_ = std::min(recent_held_ + 1, kFrozenWindow);
    } else {
        recent_held_ = 0;  // no difference (a new picture size): the window starts again
    }
    std::array<double, kConditionCount> value{};
    std::array<bool, kConditionCount> judged{};
    judge(m, value, judged);
    std::vector<WatchEvent> events;
    for (Condition c : kConditions) {
        ConditionState& state = states_[index(c)];
        if (!judged[index(c)] || !settings_.of(c).enabled.value_or(true)) {
            state.hold_off();
            continue;
        }
        if (const auto t = state.observe(time, value[index(c)]))
            events.push_back(WatchEvent{stream_, c, t->entered, t->time, t->since, t->value});
    }
    return events;
}

CameraWatch::CameraWatch(std::string stream, const WatchSettings& settings) : watcher_(std::move(stream), settings) {}

std::vector<WatchEvent> CameraWatch::observe(double time, const LumaThumbnail& thumbnail) {
    last_ = measurer_.measure(thumbnail, watcher_.motion_noise_levels());
    if (watcher_.calibrating(time)) measurer_.learn_reference();
    return watcher_.observe(time, last_);
}

}  // namespace vf::watch
