#include "app/serve/watch/event_log.hpp"

#include <cmath>
#include <cstdio>
#include <random>

#include "common/metric_set.hpp"

namespace vf {

nlohmann::json describe(const LoggedEvent& e) {
    const auto rounded = [](double v, double scale) { return std::round(v * scale) / scale; };
    return {{"id", e.id},
            {"stream", e.event.stream},
            {"kind", watch::condition_name(e.event.kind)},
            {"change", e.event.entered ? "entered" : "left"},
            {"time", rounded(e.time_unix, 1000)},
            {"since", rounded(e.since_unix, 1000)},
            {"value", rounded(e.event.value, 1e6)}};
}

namespace {

std::string random_boot() {
    std::random_device random;
    char text[9];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(random()));
    return text;
}

}  // namespace

EventLog::EventLog(size_t capacity, std::string boot) : capacity_(capacity), boot_(boot.empty() ? random_boot() : std::move(boot)) {}

double EventLog::steady_seconds(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
}

void EventLog::add(const watch::WatchEvent& e) {
    // The steady clock's seconds to the wall clock's, as of now: the event happened a moment ago.
    const double wall_now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const double to_wall = wall_now - steady_seconds();
    LoggedEvent logged;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        logged.id = ++last_id_;
        logged.event = e;
        logged.time_unix = e.time + to_wall;
        logged.since_unix = e.since + to_wall;
        events_.push_back(logged);
        while (events_.size() > capacity_) events_.pop_front();
    }
    added_.notify_all();
    if (listener_.on_event) listener_.on_event(logged);
}

std::string EventLog::listener_metrics() const {
    if (!listener_.metrics) return "";
    MetricSet set;
    listener_.metrics(set);
    return set.text();
}

std::vector<LoggedEvent> EventLog::find(const EventQuery& q) const {
    std::vector<LoggedEvent> found;
    std::lock_guard<std::mutex> lock(mutex_);
    // Newest first, up to the limit, then put back in order.
    for (auto it = events_.rbegin(); it != events_.rend() && found.size() < q.limit; ++it) {
        if (it->id <= q.after_id) break;
        if (q.stream && it->event.stream != *q.stream) continue;
        if (q.kind && it->event.kind != *q.kind) continue;
        if (it->time_unix < q.since_unix) continue;
        found.push_back(*it);
    }
    return {found.rbegin(), found.rend()};
}

uint64_t EventLog::wait_after(uint64_t after_id, std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    added_.wait_for(lock, timeout, [&] { return last_id_ > after_id || closed_; });
    return last_id_;
}

uint64_t EventLog::last_id() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_id_;
}

uint64_t EventLog::oldest_id() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_.empty() ? 0 : events_.front().id;
}

void EventLog::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closed_ = true;
    }
    added_.notify_all();
}

bool EventLog::closed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_;
}

}  // namespace vf
