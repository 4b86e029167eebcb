#include "app/serve/http/events_api.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "app/serve/http/fleet_events.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/service_error.hpp"

namespace vf {

namespace {

const char* const kParameters =
        "GET /events takes stream, kind, since, after, limit and scope; GET /events/stream takes stream, kind and after";
// An id: 1 to 16 of 0-9 a-z, "-", then 1 to 16 digits (event_log.hpp), or the digits alone.
constexpr size_t kMaxEventIdLength = 33;

double unix_seconds(const std::string& value) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !std::isfinite(v) || v < 0 || v > 1e11)
        throw ServiceError(400, "since: expected a time in seconds since 1970 (0 to 1e11, such as 1767225600.5)");
    return v;
}

// An event's id as a reader gives it back; `why` (naming the parameter) when it is not one.
EventIdGiven event_id(const std::string& value, const char* why) {
    if (value.size() > kMaxEventIdLength) throw ServiceError(400, why);
    const size_t dash = value.find('-');
    EventIdGiven id;
    if (dash != std::string::npos) {
        id.boot = value.substr(0, dash);
        if (id.boot.empty() || id.boot.size() > 16) throw ServiceError(400, why);
        for (const char c : id.boot)
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) throw ServiceError(400, why);
    }
    const std::string digits = dash == std::string::npos ? value : value.substr(dash + 1);
    if (digits.empty() || digits.size() > 16) throw ServiceError(400, why);
    for (const char c : digits)
        if (c < '0' || c > '9') throw ServiceError(400, why);
    id.number = std::strtoull(digits.c_str(), nullptr, 10);
    if (id.number > (1ull << 53)) throw ServiceError(400, why);
    return id;
}

watch::Condition condition_named(const std::string& value) {
    std::string names;
    for (const watch::Condition c : watch::kConditions) {
        if (value == watch::condition_name(c)) return c;
        names += std::string(names.empty() ? "" : ", ") + watch::condition_name(c);
    }
    throw ServiceError(400, "kind: expected one of " + names);
}

// One event as Server-Sent Events write it.
std::string event_message(const EventLog& log, const LoggedEvent& e) {
    return "id: " + log.id_of(e.id) + "\nevent: condition\ndata: " + describe(e).dump() + "\n\n";
}

}  // namespace

EventsAsked parse_events_asked(const std::string& raw, const std::string& last_event_id, bool stream, size_t max_limit) {
    EventsAsked asked;
    EventQuery& q = asked.query;
    for (const auto& [key, value] : query_pairs(raw, 1024)) {
        if (key == "stream") {
            if (!valid_stream_name(value)) throw ServiceError(400, "stream: expected a stream's name (1 to 64 of A-Z a-z 0-9 _ -)");
            q.stream = value;
        } else if (key == "kind") {
            q.kind = condition_named(value);
        } else if (key == "since" && !stream) {
            q.since_unix = unix_seconds(value);
        } else if (key == "after") {
            asked.after = event_id(value, "after: expected an event's id, BOOT-N as the event stream sends it or N as GET /events "
                                          "lists it (BOOT 1 to 16 of 0-9 a-z, N 0 to 2^53)");
        } else if (key == "limit" && !stream) {
            q.limit = static_cast<size_t>(query_whole_number("limit", value, 1, static_cast<int>(max_limit)));
        } else if (key == "scope" && !stream) {
            if (value != "shard" && value != "fleet")
                throw ServiceError(400, "scope: expected shard (this process's events, the default) or fleet (every shard's)");
            asked.fleet = value == "fleet";
        } else {
            throw ServiceError(400, std::string("unknown parameter: ") + kParameters);
        }
    }
    // Each shard numbers its own events: a number says nothing of the others'.
    if (asked.fleet && asked.after) throw ServiceError(400, "after: not with scope=fleet (each shard numbers its own events; use since)");
    if (stream && !last_event_id.empty()) {
        asked.after = event_id(last_event_id, "Last-Event-ID: expected an event's id as this server sends it (BOOT-N: BOOT 1 to 16 of "
                                              "0-9 a-z, N 1 to 16 digits, at most 2^53)");
        asked.resumed = true;
    }
    return asked;
}

bool numbered_here(const EventLog& log, const EventIdGiven& id, bool from_header) {
    return id.boot.empty() ? !from_header : id.boot == log.boot();
}

EventsApi::EventsApi(EventLog& log, int max_streams, std::function<bool()> closing, Fleet* fleet)
    : log_(log), max_streams_(max_streams), closing_(std::move(closing)), fleet_(fleet) {}

HttpResponse EventsApi::answer(const HttpRequest& req) {
    const bool stream = req.path == "/events/stream";
    if (req.method != "GET" && req.method != "HEAD") throw ServiceError(405, req.method + " " + req.path + ": use GET");
    EventsAsked asked = parse_events_asked(req.query, req.last_event_id, stream, log_.capacity());
    if (stream) return answer_stream(asked);
    // Another process's id: every event kept is after it.
    if (asked.after && numbered_here(log_, *asked.after, false)) asked.query.after_id = asked.after->number;
    nlohmann::json events = nlohmann::json::array();
    for (const LoggedEvent& e : log_.find(asked.query)) events.push_back(describe(e));
    nlohmann::json body = {{"events", events}, {"last_id", log_.last_id()}, {"boot", log_.boot()}, {"kept", log_.capacity()}};
    if (asked.fleet) {
        if (!fleet_) throw ServiceError(400, "scope=fleet: this process has no fleet view");
        // A peer's own answer is never merged again (it would ask the fleet back).
        if (req.forwarded_by.empty()) body = fleet_events(*fleet_, asked.query, events, log_.last_id());
    }
    return {200, "application/json", body.dump(2) + "\n"};
}

namespace {

// Where a reader that gave `id` goes on: after it when this process numbered it and the ring
// still holds what followed it (the missed event says how many it lost otherwise); from the oldest
// kept when another process numbered it (each numbers from 1). The comment says which, for a
// reader that looks.
uint64_t resume_after(const EventLog& log, const EventIdGiven& id, bool from_header, std::string* comment) {
    const uint64_t last = log.last_id(), oldest = log.oldest_id();
    const char* const given = from_header ? "Last-Event-ID" : "after";
    if (!numbered_here(log, id, from_header) || id.number > last) {
        *comment = std::string(": ") + given + " is not an event of this process: from the oldest event kept\n\n";
        return oldest ? oldest - 1 : last;
    }
    if (oldest > id.number + 1)
        *comment = std::string(": the events after ") + given + " are no longer kept: from the oldest event kept, " + std::to_string(oldest) + "\n\n";
    return id.number;
}

}  // namespace

HttpResponse EventsApi::answer_stream(const EventsAsked& asked) {
    if (streams_->fetch_add(1) >= max_streams_) {
        --*streams_;
        HttpResponse r{503, "application/json",
                       nlohmann::json{{"error", std::to_string(max_streams_) + " event streams are open already (GET /events still answers)"}}
                               .dump(2) + "\n"};
        r.headers.push_back({"Retry-After", "5"});
        return r;
    }
    // Given back with the answer's function, whether it ran or not (a client gone before its first byte).
    std::shared_ptr<void> slot(nullptr, [count = streams_](void*) { --*count; });
    HttpResponse r;
    r.content_type = "text/event-stream";
    r.stream = [this, asked, slot](const HttpBodyWriter& write) {
        EventQuery q = asked.query;
        q.limit = log_.capacity();
        std::string comment;
        // From now on, unless told where it was.
        q.after_id = asked.after ? resume_after(log_, *asked.after, asked.resumed, &comment) : log_.last_id();
        if (!write(": vfilter events\n\n" + comment)) return;
        int quiet_s = 0;
        // An hour at most: a slot is not held for ever by one reader (it goes on with Last-Event-ID or ?after=ID).
        const auto ends_at = std::chrono::steady_clock::now() + std::chrono::hours(1);
        while (!closing_() && !log_.closed() && std::chrono::steady_clock::now() < ends_at) {
            const uint64_t last = log_.wait_after(q.after_id, std::chrono::seconds(1));
            if (last <= q.after_id) {
                // A comment now and then keeps proxies from closing a quiet stream; an empty write
                // notices a reader that went.
                if (!write(++quiet_s % 15 == 0 ? ": keep-alive\n\n" : "")) return;
                continue;
            }
            quiet_s = 0;
            const uint64_t oldest = log_.oldest_id();
            if (oldest > q.after_id + 1 &&
                !write("event: missed\ndata: " + nlohmann::json{{"events", oldest - q.after_id - 1}}.dump() + "\n\n"))
                return;
            uint64_t written = last;  // events logged since wait_after() came are sent now, not again
            for (const LoggedEvent& e : log_.find(q)) {
                if (!write(event_message(log_, e))) return;
                written = std::max(written, e.id);
            }
            q.after_id = written;
        }
    };
    return r;
}

}  // namespace vf
