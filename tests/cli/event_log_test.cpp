// EventLog (app/serve/watch/event_log.cpp): the process's recent events of watched streams are a
// ring bounded in count, numbered in order, found by stream, kind, time and number, and a reader
// waiting for new ones wakes when one is logged or the log closes.
#include <gtest/gtest.h>

#include <thread>

#include "app/serve/watch/event_log.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

watch::WatchEvent event(const std::string& stream, watch::Condition kind, bool entered, double time) {
    watch::WatchEvent e;
    e.stream = stream;
    e.kind = kind;
    e.entered = entered;
    e.time = time;
    e.since = time - 1;
    e.value = 12.5;
    return e;
}

TEST(EventLog, KeepsTheNewestUpToItsBoundInOrder) {
    EventLog log(10);
    const double now = EventLog::steady_seconds();
    for (int i = 0; i < 25; ++i) log.add(event(i % 2 ? "a" : "b", watch::Condition::Dark, i % 4 < 2, now));
    EXPECT_EQ(log.last_id(), 25u);
    EXPECT_EQ(log.oldest_id(), 16u) << "the oldest went first";
    EventQuery all;
    all.limit = 100;
    const std::vector<LoggedEvent> kept = log.find(all);
    ASSERT_EQ(kept.size(), 10u);
    for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].id, 16 + i) << "oldest first";
    const nlohmann::json j = describe(kept.back());
    EXPECT_EQ(j["stream"], "b");
    EXPECT_EQ(j["kind"], "dark");
    EXPECT_EQ(j["change"], "entered");
    EXPECT_NEAR(j["time"].get<double>() - j["since"].get<double>(), 1.0, 1e-3);
    const double wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    EXPECT_NEAR(j["time"].get<double>(), wall, 2.0) << "steady seconds taken to the wall clock";
}

TEST(EventLog, FindsByStreamKindTimeAndNumber) {
    EventLog log;
    const double now = EventLog::steady_seconds();
    log.add(event("a", watch::Condition::Dark, true, now - 100));
    log.add(event("b", watch::Condition::Dark, true, now - 50));
    log.add(event("a", watch::Condition::Motion, true, now - 10));
    log.add(event("a", watch::Condition::Dark, false, now));
    EventQuery q;
    q.stream = "a";
    EXPECT_EQ(log.find(q).size(), 3u);
    q.kind = watch::Condition::Dark;
    ASSERT_EQ(log.find(q).size(), 2u);
    EXPECT_FALSE(log.find(q).back().event.entered);
    q.since_unix = log.find(q).back().time_unix - 20;
    EXPECT_EQ(log.find(q).size(), 1u) << "only those at or after since";
    EventQuery after;
    after.after_id = 2;
    EXPECT_EQ(log.find(after).size(), 2u);
    EventQuery newest;
    newest.limit = 1;
    ASSERT_EQ(log.find(newest).size(), 1u);
    EXPECT_EQ(log.find(newest)[0].id, 4u) << "a limit keeps the newest";
}

TEST(EventLog, AWaitingReaderWakesOnANewEventOrTheClose) {
    EventLog log;
    const auto t = std::chrono::steady_clock::now();
    EXPECT_EQ(log.wait_after(0, 50ms), 0u);
    EXPECT_GE(std::chrono::steady_clock::now() - t, 45ms);
    std::thread adder([&] {
        std::this_thread::sleep_for(50ms);
        log.add(event("a", watch::Condition::Frozen, true, EventLog::steady_seconds()));
    });
    EXPECT_EQ(log.wait_after(0, 5s), 1u);
    adder.join();
    std::thread closer([&] {
        std::this_thread::sleep_for(50ms);
        log.close();
    });
    const auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(log.wait_after(1, 5s), 1u);
    EXPECT_LT(std::chrono::steady_clock::now() - t2, 2s) << "the close wakes it";
    EXPECT_TRUE(log.closed());
    closer.join();
}

}  // namespace
}  // namespace vf
