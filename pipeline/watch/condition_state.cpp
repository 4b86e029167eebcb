#include "pipeline/watch/condition_state.hpp"

#include <algorithm>

namespace vf::watch {

std::optional<Transition> ConditionState::observe(double time, double value) {
    const double threshold = active_ ? h_.leave : h_.enter;
    // Entering needs the measure on the condition's side of `enter`; leaving, on the other side of `leave`.
    const bool past = (h_.side == Side::Below) != active_ ? value < threshold : value > threshold;
    if (!past) {
        pending_since_.reset();
        return std::nullopt;
    }
    if (!pending_since_) pending_since_ = time;
    const double hold = active_ ? h_.leave_hold_s : h_.enter_hold_s;
    // Never more than half the hold off: a short hold at a slow rate still wants two measurements.
    if (time - *pending_since_ < hold - std::min(slack_s_, hold / 2)) return std::nullopt;
    active_ = !active_;
    Transition t{active_, time, *pending_since_, value};
    pending_since_.reset();
    return t;
}

}  // namespace vf::watch
