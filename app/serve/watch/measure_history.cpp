#include "app/serve/watch/measure_history.hpp"

#include <algorithm>
#include <cmath>

namespace vf {

namespace {

nlohmann::json history_number(float v) { return std::round(static_cast<double>(v) * 1e4) / 1e4; }

nlohmann::json history_number(const std::optional<float>& v) { return v ? history_number(*v) : nlohmann::json(nullptr); }

std::optional<float> narrowed(const std::optional<double>& v) {
    return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
}

}  // namespace

void MeasureHistory::add(double time_unix, const watch::PictureMeasures& m) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_ > 0) {
        const Sample& last = ring_[(next_ + kCapacity - 1) % kCapacity];
        // A little short of a step still counts as one: measurements come at their own pace.
        if (time_unix >= last.time && time_unix - last.time < kStepS * 0.9) return;
    }
    ring_[next_] = {time_unix, static_cast<float>(m.sharpness), static_cast<float>(m.luma_mean), narrowed(m.difference),
                    narrowed(m.edge_agreement)};
    next_ = (next_ + 1) % kCapacity;
    count_ = std::min(count_ + 1, kCapacity);
}

size_t MeasureHistory::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
}

nlohmann::json MeasureHistory::describe(double since_unix) const {
    nlohmann::json time = nlohmann::json::array(), sharpness = nlohmann::json::array(), luma = nlohmann::json::array(),
                   difference = nlohmann::json::array(), agreement = nlohmann::json::array();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // A stream measured at a pace that is not a multiple of the step spans more than the
        // window with the ring's samples: the window is what is shown.
        const double from = count_ ? std::max(since_unix, ring_[(next_ + kCapacity - 1) % kCapacity].time - kKeptS) : since_unix;
        for (size_t i = 0; i < count_; ++i) {
            const Sample& s = ring_[(next_ + kCapacity - count_ + i) % kCapacity];
            if (s.time < from) continue;
            time.push_back(std::round(s.time * 1000) / 1000);
            sharpness.push_back(history_number(s.sharpness));
            luma.push_back(history_number(s.luma_mean));
            difference.push_back(history_number(s.difference));
            agreement.push_back(history_number(s.edge_agreement));
        }
    }
    return {{"every_s", kStepS},   {"kept_s", kKeptS},           {"time", time},
            {"sharpness", sharpness}, {"luma_mean", luma}, {"difference", difference}, {"edge_agreement", agreement}};
}

}  // namespace vf
