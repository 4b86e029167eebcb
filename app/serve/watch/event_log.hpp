// The recent events of every watched stream of the process (a condition entered or left:
// pipeline/watch/stream_watcher.hpp), for GET /events and GET /events/stream: a ring bounded in
// count, so that memory never grows with time; the oldest event goes first. Each event gets a
// number that grows by one, so a reader that waits for new ones (an event stream) knows where it
// was and how many it missed when it fell behind the ring. Numbers start at 1 in each process, so
// the log has a boot mark of its own, random: an event's id as readers keep it is "BOOT-N", and
// one of another process is known as such rather than taken for this one's N.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/watch/stream_watcher.hpp"

namespace vf {

class MetricSet;

struct LoggedEvent {
    uint64_t id = 0;  // 1, 2, ... in the order they were logged
    watch::WatchEvent event;
    double time_unix = 0, since_unix = 0;  // event.time and event.since on the wall clock (seconds)
};
nlohmann::json describe(const LoggedEvent& e);

// What GET /events asks for (app/serve/http/events_api.hpp checks it).
struct EventQuery {
    std::optional<std::string> stream;
    std::optional<watch::Condition> kind;
    double since_unix = 0;  // events at or after this wall-clock time
    uint64_t after_id = 0;  // events numbered above this
    size_t limit = 100;     // the newest this many
};

class EventLog {
public:
    static constexpr size_t kDefaultCapacity = 1000;
    // boot: 1 to 16 of 0-9 a-z; empty: 8 random hex digits.
    explicit EventLog(size_t capacity = kDefaultCapacity, std::string boot = "");

    const std::string& boot() const { return boot_; }
    std::string id_of(uint64_t number) const { return boot_ + "-" + std::to_string(number); }  // "BOOT-N"

    // An event of a stream's watch, whose times are on the steady clock's seconds.
    void add(const watch::WatchEvent& e);
    // Those that match, oldest first.
    std::vector<LoggedEvent> find(const EventQuery& q) const;
    // Waits up to `timeout` for an event numbered above `after_id` (or the log's closing); the
    // number of the newest event then.
    uint64_t wait_after(uint64_t after_id, std::chrono::milliseconds timeout) const;
    uint64_t last_id() const;
    uint64_t oldest_id() const;  // 0 when empty
    void close();  // wakes every waiter, for good (serve stops)
    bool closed() const;
    size_t capacity() const { return capacity_; }

    // Where each event goes too, as it is logged (serve's webhook: app/serve/webhook_sender.hpp),
    // and its part of /metrics. Set before the streams start; called outside the log's lock.
    struct Listener {
        std::function<void(const LoggedEvent&)> on_event;
        std::function<void(MetricSet&)> metrics;
    };
    void set_listener(Listener listener) { listener_ = std::move(listener); }
    std::string listener_metrics() const;

    // Seconds on the steady clock that the watchers feed their events with.
    static double steady_seconds(std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now());

private:
    const size_t capacity_;
    const std::string boot_;
    mutable std::mutex mutex_;
    mutable std::condition_variable added_;
    std::deque<LoggedEvent> events_;
    uint64_t last_id_ = 0;
    bool closed_ = false;
    Listener listener_;
};

}  // namespace vf
