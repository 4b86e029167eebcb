// One condition of one stream with hysteresis: fed (time, measure), it says when the condition is
// entered or left (watch_settings.hpp: Hysteresis).
#pragma once

#include <optional>

#include "pipeline/watch/watch_settings.hpp"

namespace vf::watch {

struct Transition {
    bool entered = false;  // false: left
    double time = 0;       // the measurement at which the hold was complete
    double since = 0;      // the first measurement of the hold: when the change began
    double value = 0;      // the measure at `time`
};

class ConditionState {
public:
    explicit ConditionState(const Hysteresis& h = {}) : h_(h) {}

    // The measure at `time` (never earlier than the last): a transition when the hold completes,
    // at the first measurement within half a measuring interval (at most half the hold) of its
    // end. Measurements come at the interval only roughly (each takes the next decoded frame
    // after it is due), so one a few milliseconds early would otherwise leave the hold to the
    // next one, a whole interval later.
    std::optional<Transition> observe(double time, double value);
    // The measure means nothing now (a picture too dark to judge its sharpness): the condition
    // keeps its state, and a hold under way starts again at the next judged measurement.
    void hold_off() { pending_since_.reset(); }

    bool active() const { return active_; }
    const Hysteresis& hysteresis() const { return h_; }
    void set_hysteresis(const Hysteresis& h) { h_ = h; }
    void set_measuring_interval(double seconds) { slack_s_ = seconds / 2; }

private:
    Hysteresis h_;
    double slack_s_ = 0;  // half the measuring interval
    bool active_ = false;
    std::optional<double> pending_since_;
};

}  // namespace vf::watch
