#include "encode/latency_log.hpp"

#include <utility>

namespace vf {

void LatencyLog::set_warmup(int64_t frames) {
    std::lock_guard<std::mutex> lock(mutex_);
    warmup_ = frames;
}

void LatencyLog::add(Clock::time_point read_at, Clock::time_point written_at) {
    const double ms = std::chrono::duration<double, std::milli>(written_at - read_at).count();
    std::lock_guard<std::mutex> lock(mutex_);
    (seen_++ < warmup_ ? warming_ : histogram_).add(ms);
    rotate(written_at);
    filling_.add(ms);
}

double LatencyLog::percentile(double p) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return (seen_ > warmup_ ? histogram_ : warming_).percentile(p);
}

double LatencyLog::recent_percentile(double p, Clock::time_point now) const {
    std::lock_guard<std::mutex> lock(mutex_);
    rotate(now);
    return (have_recent_ ? recent_ : filling_).percentile(p);
}

void LatencyLog::rotate(Clock::time_point now) const {
    if (filling_since_ == Clock::time_point{}) filling_since_ = now;
    if (now - filling_since_ < kRecentWindow) return;
    // The window being filled is complete; if a whole window more has passed since, the last
    // complete window saw no frame at all.
    recent_ = now - filling_since_ < 2 * kRecentWindow ? std::move(filling_) : DurationHistogram{};
    filling_ = DurationHistogram{};
    have_recent_ = true;
    // Windows stay aligned to the first frame, so a reading between frames does not shift them.
    const auto windows = (now - filling_since_) / kRecentWindow;
    filling_since_ += windows * kRecentWindow;
}

}  // namespace vf
