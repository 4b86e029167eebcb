#include "pipeline/watch/watch_settings.hpp"

#include <algorithm>
#include <sstream>

#include "common/error.hpp"

namespace vf::watch {

const char* condition_name(Condition c) {
    switch (c) {
    case Condition::Blurred: return "blurred";
    case Condition::Covered: return "covered";
    case Condition::Frozen: return "frozen";
    case Condition::Dark: return "dark";
    case Condition::Bright: return "bright";
    case Condition::Moved: return "moved";
    case Condition::Motion: return "motion";
    }
    return "unknown";
}

Hysteresis default_hysteresis(Condition c) {
    // Entered after a second past the threshold (a few measurements agree, so one odd picture
    // raises nothing, and the change is reported within 2 s at 4 a second); left after 2 s back.
    switch (c) {
    case Condition::Blurred: return {Side::Below, 0.35, 0.6, 1, 2};
    case Condition::Covered: return {Side::Below, 0.3, 0.5, 1, 2};
    case Condition::Frozen: return {Side::Below, kFrozenMaxEnter, 2 * kFrozenMaxEnter, 1, 2};
    case Condition::Dark: return {Side::Below, 28, 40, 1, 2};
    case Condition::Bright: return {Side::Above, 225, 210, 1, 2};
    case Condition::Moved: return {Side::Below, 0.35, 0.55, 1, 2};
    // Motion is entered at the first measurement that shows it (the noise threshold already keeps
    // sensor noise out), so that it is reported within one measuring interval.
    case Condition::Motion: return {Side::Above, 0.002, 0.0005, 0, 1.5};
    }
    return {};
}

namespace {

// The range a condition's thresholds may take, in its measure's units.
void threshold_range(Condition c, double& low, double& high) {
    switch (c) {
    case Condition::Blurred:
    case Condition::Covered: low = 0, high = 1; return;
    case Condition::Frozen: low = 0, high = 255; return;
    case Condition::Dark:
    case Condition::Bright: low = 0, high = 255; return;
    case Condition::Moved: low = -1, high = 1; return;
    case Condition::Motion: low = 0, high = 1; return;
    }
}

[[noreturn]] void out_of_range(const std::string& field, double value, const std::string& allowed) {
    std::ostringstream m;
    m << field << ": " << value << " is out of range; allowed: " << allowed;
    fail(ErrorCategory::Usage, m.str());
}

void check_range(const std::string& field, const std::optional<double>& v, double low, double high) {
    if (!v) return;
    if (!(*v >= low && *v <= high)) {
        std::ostringstream allowed;
        allowed << low << " to " << high;
        out_of_range(field, *v, allowed.str());
    }
}

void check_condition(Condition c, const ConditionSettings& s) {
    const std::string field = std::string("watch.") + condition_name(c) + ".";
    double low = 0, high = 0;
    threshold_range(c, low, high);
    check_range(field + "enter", s.enter, low, high);
    check_range(field + "leave", s.leave, low, high);
    check_range(field + "enter_hold_s", s.enter_hold_s, 0, 600);
    check_range(field + "leave_hold_s", s.leave_hold_s, 0, 600);
    const Hysteresis h = resolve_hysteresis(c, s, default_hysteresis(c));
    const bool crossed = h.side == Side::Below ? h.leave < h.enter : h.leave > h.enter;
    if (crossed) {
        std::ostringstream m;
        m << field << "leave: " << h.leave << " must be " << (h.side == Side::Below ? "at least" : "at most") << " "
          << field << "enter (" << h.enter << "), so that the condition cannot flap";
        fail(ErrorCategory::Usage, m.str());
    }
}

}  // namespace

void check_watch_settings(const WatchSettings& s) {
    check_range("watch.measure_rate_hz", s.measure_rate_hz, 1, 30);
    check_range("watch.calibration_s", s.calibration_s, 10, 3600);
    if (s.motion_noise_levels && (*s.motion_noise_levels < 1 || *s.motion_noise_levels > 254))
        out_of_range("watch.motion_noise_levels", *s.motion_noise_levels, "1 to 254");
    for (Condition c : kConditions) check_condition(c, s.of(c));
}

Hysteresis resolve_hysteresis(Condition c, const ConditionSettings& s, const Hysteresis& fallback) {
    Hysteresis h = fallback;
    if (s.enter) h.enter = *s.enter;
    if (s.leave) h.leave = *s.leave;
    // Only the enter threshold set: the leave threshold keeps its distance from it, within the
    // measure's range.
    if (s.enter && !s.leave) {
        double low = 0, high = 0;
        threshold_range(c, low, high);
        h.leave = std::clamp(*s.enter + (fallback.leave - fallback.enter), low, high);
    }
    if (s.enter_hold_s) h.enter_hold_s = *s.enter_hold_s;
    if (s.leave_hold_s) h.leave_hold_s = *s.leave_hold_s;
    return h;
}

}  // namespace vf::watch
