// The watched streams' events over HTTP (docs/serve.md, "Cameras that watch themselves"):
// GET /events (the recent ones, oldest first, filtered by stream, kind, since, after, limit) and
// GET /events/stream (Server-Sent Events: each new event as it is logged, its id "BOOT-N"; a
// reader that reconnects with the standard Last-Event-ID header resumes after that event, or from
// the oldest kept when the id is another process's: event_log.hpp). GET /events?scope=fleet merges
// every shard's events, each with its shard (fleet_events.hpp). Every parameter is
// typed and checked; a malformed, unknown, repeated or out-of-range one is refused (400) naming
// the parameter and what it takes. An event stream holds one of max_streams places and a worker
// while it lasts; a reader that falls behind the log's ring is told how many events it missed,
// so nothing queues per reader beyond the ring itself. The token rules are those of /streams
// (app/serve/http/api_guard.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/serve/watch/event_log.hpp"
#include "common/http_server.hpp"

namespace vf {

class Fleet;

// An event's id as a reader gives it back: "BOOT-N" as the event stream sends it (boot set), or N
// alone, an event's "id" in GET /events (this process's in after=; in Last-Event-ID, an older
// serve's, since this one sends BOOT-N there).
struct EventIdGiven {
    std::string boot;  // empty: N alone
    uint64_t number = 0;
};

// What GET /events and /events/stream were asked.
struct EventsAsked {
    EventQuery query;                    // its after_id is set from `after` where the log is known
    bool fleet = false;                  // scope=fleet (GET /events only)
    std::optional<EventIdGiven> after;   // after=ID, or the Last-Event-ID header (which wins: a reconnect)
    bool resumed = false;                // `after` came from Last-Event-ID
};

// Whether `id` is an event `log` numbered (this process's), or another process's.
bool numbered_here(const EventLog& log, const EventIdGiven& id, bool from_header);

// The query of GET /events (stream=true: of /events/stream, which takes no limit nor scope) and
// the Last-Event-ID header (`last_event_id`, "" when absent). ServiceError 400.
EventsAsked parse_events_asked(const std::string& raw, const std::string& last_event_id, bool stream, size_t max_limit);

class EventsApi {
public:
    static constexpr int kDefaultMaxStreams = 4;
    // closing: whether serve is stopping (event streams then end). fleet: null without a fleet view.
    EventsApi(EventLog& log, int max_streams, std::function<bool()> closing, Fleet* fleet = nullptr);
    // GET /events or GET /events/stream.
    HttpResponse answer(const HttpRequest& request);

private:
    HttpResponse answer_stream(const EventsAsked& asked);

    EventLog& log_;
    int max_streams_;
    std::function<bool()> closing_;
    Fleet* fleet_;
    std::shared_ptr<std::atomic<int>> streams_ = std::make_shared<std::atomic<int>>(0);  // outlives this with its last stream
};

}  // namespace vf
