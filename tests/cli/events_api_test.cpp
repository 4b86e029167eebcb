// EventsApi (app/serve/http/events_api.cpp) as a reader that reconnects meets it: Last-Event-ID
// resumes the event stream after that event with exactly the events it missed; an id the ring no
// longer holds, or one of another process (serve started again: another boot mark), resumes from
// the oldest kept and says so, and after= of another process lists every event kept; a malformed
// header or after= is refused (400) naming it, before any stream place is taken. The fleet
// scope's parameters are checked at the door too.
#include <gtest/gtest.h>

#include <regex>

#include "app/serve/http/events_api.hpp"
#include "app/serve/http/fleet_events.hpp"
#include "app/serve/service_error.hpp"

namespace vf {
namespace {

watch::WatchEvent dark(const std::string& stream, bool entered) {
    watch::WatchEvent e;
    e.stream = stream;
    e.kind = watch::Condition::Dark;
    e.entered = entered;
    e.time = e.since = EventLog::steady_seconds();
    e.value = 3;
    return e;
}

HttpRequest stream_request(const std::string& last_event_id, const std::string& query = "") {
    HttpRequest r;
    r.method = "GET";
    r.path = "/events/stream";
    r.query = query;
    r.last_event_id = last_event_id;
    return r;
}

// What an event stream of `log` sends a reader at once: serve closes after the stream's first
// round (or the reader leaves at its first empty write, the quiet poll, when nothing was due).
std::string read_until_quiet(EventLog& log, const HttpRequest& request) {
    EventsApi api(log, 4, [rounds = std::make_shared<int>(0)] { return ++*rounds > 1; });
    HttpResponse r = api.answer(request);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.content_type, "text/event-stream");
    std::string sent;
    if (r.stream) r.stream([&sent](const std::string& piece) {
            sent += piece;
            return !piece.empty();
        });
    return sent;
}

std::vector<uint64_t> ids_sent(const std::string& sent) {
    std::vector<uint64_t> ids;
    const std::regex id_line("(^|\n)id: b00t-(\\d+)\n");
    for (auto it = std::sregex_iterator(sent.begin(), sent.end(), id_line); it != std::sregex_iterator(); ++it)
        ids.push_back(std::stoull((*it)[2]));
    return ids;
}

TEST(EventsApiResume, LastEventIdGivesExactlyTheEventsMissed) {
    EventLog log(10, "b00t");
    for (int i = 0; i < 6; ++i) log.add(dark(i % 2 ? "a" : "b", i % 4 < 2));
    std::string sent = read_until_quiet(log, stream_request("b00t-3"));
    EXPECT_EQ(ids_sent(sent), (std::vector<uint64_t>{4, 5, 6})) << sent;
    EXPECT_EQ(sent.find("event: missed"), std::string::npos) << sent;
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("b00t-6"))), std::vector<uint64_t>{}) << "nothing was missed";
    // The header wins over ?after= (a browser's EventSource reconnects to the same address).
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("b00t-5", "after=b00t-1"))), std::vector<uint64_t>{6});
    // The stream's filter still holds: only a's events after 2.
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("b00t-2", "stream=a"))), (std::vector<uint64_t>{4, 6}));
    // 0: a reader that saw nothing yet gets every event kept.
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("b00t-0"))).size(), 6u);
    // after= alone: BOOT-N as the stream sends ids, or N as GET /events lists them.
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("", "after=b00t-4"))), (std::vector<uint64_t>{5, 6}));
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request("", "after=4"))), (std::vector<uint64_t>{5, 6}));
    // Without the header, a new reader gets only what comes from now on.
    EXPECT_EQ(ids_sent(read_until_quiet(log, stream_request(""))), std::vector<uint64_t>{});
}

TEST(EventsApiResume, AnIdNoLongerKeptOrNeverNumberedResumesFromTheOldestKept) {
    EventLog log(4, "b00t");
    for (int i = 0; i < 10; ++i) log.add(dark("a", i % 2 == 0));  // 7..10 kept
    std::string sent = read_until_quiet(log, stream_request("b00t-2"));
    EXPECT_EQ(ids_sent(sent), (std::vector<uint64_t>{7, 8, 9, 10})) << sent;
    EXPECT_NE(sent.find("\n: the events after Last-Event-ID are no longer kept: from the oldest event kept, 7\n"), std::string::npos) << sent;
    EXPECT_NE(sent.find("event: missed\ndata: {\"events\":4}"), std::string::npos) << "3..6 were lost: " << sent;
    // An id above the last one was numbered by another run of the process.
    sent = read_until_quiet(log, stream_request("b00t-4000"));
    EXPECT_EQ(ids_sent(sent), (std::vector<uint64_t>{7, 8, 9, 10})) << sent;
    EXPECT_NE(sent.find(": Last-Event-ID is not an event of this process: from the oldest event kept"), std::string::npos) << sent;
    EventLog empty(EventLog::kDefaultCapacity, "b00t");
    sent = read_until_quiet(empty, stream_request("0ld-12"));
    EXPECT_NE(sent.find("not an event of this process"), std::string::npos) << sent;
    empty.add(dark("a", true));
    EXPECT_EQ(ids_sent(read_until_quiet(empty, stream_request("0ld-12"))), std::vector<uint64_t>{1}) << "the new run's first event";
}

// Each process numbers from 1: an id another process sent (serve started again since) is not
// taken for this one's event of the same number, whether it comes back in Last-Event-ID or after=.
TEST(EventsApiResume, AnIdOfAnotherProcessGetsEveryEventKeptAndOneOfThisProcessOnlyNewerOnes) {
    EventLog before(10), now(10);  // two runs of serve, one after the other
    ASSERT_NE(before.boot(), now.boot());
    for (int i = 0; i < 8; ++i) before.add(dark("a", i % 2 == 0));
    for (int i = 0; i < 3; ++i) now.add(dark("a", i % 2 == 0));
    const std::regex id_line("(^|\n)id: " + now.boot() + "-(\\d+)\n");
    const auto ids_of_now = [&](const std::string& sent) {
        std::vector<uint64_t> ids;
        for (auto it = std::sregex_iterator(sent.begin(), sent.end(), id_line); it != std::sregex_iterator(); ++it)
            ids.push_back(std::stoull((*it)[2]));
        return ids;
    };
    // The last id a reader of the earlier run kept: 1 by this run's numbers, far from the same event.
    const std::string earlier = before.id_of(1);
    std::string sent = read_until_quiet(now, stream_request(earlier));
    EXPECT_EQ(ids_of_now(sent), (std::vector<uint64_t>{1, 2, 3})) << sent;
    EXPECT_NE(sent.find(": Last-Event-ID is not an event of this process"), std::string::npos) << sent;
    EXPECT_EQ(ids_of_now(read_until_quiet(now, stream_request("", "after=" + earlier))), (std::vector<uint64_t>{1, 2, 3}));
    // N alone in Last-Event-ID: a serve of an older version sent it, not this one.
    EXPECT_EQ(ids_of_now(read_until_quiet(now, stream_request("1"))), (std::vector<uint64_t>{1, 2, 3}));
    // This run's own id: only what came after it.
    EXPECT_EQ(ids_of_now(read_until_quiet(now, stream_request(now.id_of(1)))), (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(ids_of_now(read_until_quiet(now, stream_request("", "after=" + now.id_of(2)))), std::vector<uint64_t>{3});
    // GET /events alike, its body saying the boot mark that makes an event's full id.
    EventsApi api(now, 4, [] { return false; });
    HttpRequest r;
    r.method = "GET";
    r.path = "/events";
    const auto listed = [&](const std::string& query) {
        r.query = query;
        const nlohmann::json body = nlohmann::json::parse(api.answer(r).body);
        EXPECT_EQ(body["boot"], now.boot());
        std::vector<uint64_t> ids;
        for (const nlohmann::json& e : body["events"]) ids.push_back(e["id"].get<uint64_t>());
        return ids;
    };
    EXPECT_EQ(listed("after=" + earlier), (std::vector<uint64_t>{1, 2, 3})) << "another process's id: every event kept";
    EXPECT_EQ(listed("after=" + now.id_of(1)), (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(listed("after=2"), std::vector<uint64_t>{3}) << "N alone: this process's, as GET /events lists it";
    for (const char* bad : {"after=-1", "after=b00t-", "after=B-1", "after=1-2-3", "after=x"}) {
        r.query = bad;
        try {
            api.answer(r);
            ADD_FAILURE() << bad << " was taken";
        } catch (const ServiceError& e) {
            EXPECT_EQ(e.status(), 400) << bad;
            EXPECT_NE(std::string(e.what()).find("after"), std::string::npos) << e.what();
        }
    }
}

TEST(EventsApiResume, AMalformedLastEventIdIsRefusedAndTakesNoPlace) {
    EventLog log;
    EventsApi api(log, 1, [] { return false; });
    for (const std::string& bad : std::vector<std::string>{"abc", "-1", "+5", "1.5", " 7", "7 ", "0x10", "12345678901234567", "9007199254740993", "1,2",
                                  std::string(200, '9'), "b00t-", "B00T-1", "b00t-1-2", "b00t--1", "b 0-1", "b00t-x", "abcdefghijklmnopq-1",
                                  "b00t-9007199254740993"}) {
        try {
            api.answer(stream_request(bad));
            ADD_FAILURE() << bad << " was taken";
        } catch (const ServiceError& e) {
            EXPECT_EQ(e.status(), 400) << bad;
            EXPECT_NE(std::string(e.what()).find("Last-Event-ID"), std::string::npos) << e.what();
            if (bad.size() > 3) {
                EXPECT_EQ(std::string(e.what()).find(bad), std::string::npos) << "a refusal does not echo what it read";
            }
        }
    }
    // The one place is still free.
    EXPECT_EQ(api.answer(stream_request(log.id_of(9007199254740992ull))).status, 200);
}

TEST(EventsApiScope, FleetIsForTheListAndNotWithAfter) {
    EventLog log;
    EventsApi api(log, 4, [] { return false; });
    HttpRequest r;
    r.method = "GET";
    r.path = "/events";
    const auto status_of = [&](const std::string& query, const std::string& path = "/events") {
        r.query = query;
        r.path = path;
        try {
            return api.answer(r).status;
        } catch (const ServiceError& e) {
            return e.status();
        }
    };
    EXPECT_EQ(status_of("scope=shard"), 200);
    EXPECT_EQ(status_of("scope=fleet"), 400) << "this process has no fleet view";
    EXPECT_EQ(status_of("scope=world"), 400);
    EXPECT_EQ(status_of("scope=fleet&after=3"), 400);
    EXPECT_EQ(status_of("scope=fleet", "/events/stream"), 400) << "the event stream is this shard's";
    EventQuery q;
    q.stream = "cam-1";
    q.kind = watch::Condition::Frozen;
    q.since_unix = 1767225600.25;
    q.limit = 7;
    q.after_id = 99;
    EXPECT_EQ(peer_events_target(q), "/events?limit=7&stream=cam-1&kind=frozen&since=1767225600.250") << "never after: numbers are per shard";
}

}  // namespace
}  // namespace vf
