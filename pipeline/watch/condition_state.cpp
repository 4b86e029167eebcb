#include "pipeline/watch/condition_state.hpp"

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
    if (time - *pending_since_ < hold - slack_s_) return std::nullopt;
    active_ = !active_;
    Transition t{active_, time, *pending_since_, value};
    pending_since_.reset();
    return t;
}

}  // namespace vf::watch
