// Deferred answers of the HTTP server (HttpResponse::deferred, HttpCompletion): a handler that
// starts its work elsewhere frees its worker at once, and the answer completed later from another
// thread reaches its client, on a connection that then serves the next request; it may stream.
// Completing is harmless when the client has left, while the server stops and after it is gone;
// a completion dropped uncalled answers 503; http_answer_bytes waits for a deferred answer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/http_server.hpp"
#include "support/http_client.hpp"

namespace vf::http_deferred_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The completions of deferred answers, kept until the test completes them from its own thread.
class Pending {
public:
    void add(HttpCompletion done) {
        std::lock_guard<std::mutex> lock(mutex_);
        waiting_.push_back(std::move(done));
        changed_.notify_all();
    }
    // The oldest completion, once one has come (nullopt after `timeout`).
    std::optional<HttpCompletion> take(std::chrono::milliseconds timeout = 5s) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!changed_.wait_for(lock, timeout, [&] { return !waiting_.empty(); })) return std::nullopt;
        HttpCompletion done = std::move(waiting_.front());
        waiting_.pop_front();
        return done;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<HttpCompletion> waiting_;
};

HttpServerOptions one_worker() {
    HttpServerOptions o;
    o.workers = 1;  // a deferred answer that held it would hold every other request
    // One request may wait: the deferred work is started (and the test told) just before the
    // worker counts as free again, so a request sent at once can find it a moment busy.
    o.waiting = 1;
    return o;
}

// /later defers its answer to `pending`; anything else answers at once.
HttpHandler deferring(Pending& pending) {
    return [&pending](const HttpRequest& r) {
        if (r.path != "/later") return HttpResponse{200, "text/plain", "now " + r.path + "\n"};
        HttpResponse a;
        a.deferred = [&pending](HttpCompletion done) { pending.add(std::move(done)); };
        return a;
    };
}

TEST(HttpServerDeferred, TheWorkerIsFreeWhileTheAnswerWaitsAndKeepAliveGoesOn) {
    Pending pending;
    HttpServer server(one_worker(), deferring(pending));
    test::HttpConnection later(server.port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    std::optional<HttpCompletion> done = pending.take();
    ASSERT_TRUE(done);
    // With the one worker held by the deferred answer, none of these would be answered: it is
    // completed only after them (below); they would wait, or be refused with 503.
    for (int i = 0; i < 3; ++i) {
        const std::string r = test::http_exchange(server.port(), "GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        EXPECT_NE(r.find("now /other"), std::string::npos) << r;
    }
    const auto t = Clock::now();  // before the completer starts its 200 ms
    std::thread completer([&] {
        std::this_thread::sleep_for(200ms);
        (*done)(HttpResponse{201, "text/plain", "made later\n"});
        (*done)(HttpResponse{500, "text/plain", "a second call\n"});  // does nothing
    });
    EXPECT_NE(later.read_until("made later\n").find("HTTP/1.1 201 Created"), std::string::npos) << later.read_until("");
    EXPECT_GE(Clock::now() - t, 150ms);
    completer.join();
    // The same connection takes the next request.
    ASSERT_TRUE(later.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_NE(later.read_until("now /next").find("now /next"), std::string::npos) << later.read_until("");
    EXPECT_EQ(later.read_until("").find("a second call"), std::string::npos);
}

TEST(HttpServerDeferred, ADeferredAnswerMayStream) {
    Pending pending;
    HttpServer server(one_worker(), deferring(pending));
    test::HttpConnection later(server.port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    std::optional<HttpCompletion> done = pending.take();
    ASSERT_TRUE(done);
    HttpResponse streamed;
    streamed.stream = [](const HttpBodyWriter& write) { write("part 1,") && write("part 2"); };
    (*done)(std::move(streamed));
    const std::string got = later.read_until("0\r\n\r\n");
    EXPECT_NE(got.find("Transfer-Encoding: chunked"), std::string::npos) << got;
    EXPECT_NE(got.find("part 1,"), std::string::npos) << got;
    EXPECT_NE(got.find("part 2"), std::string::npos) << got;
}

TEST(HttpServerDeferred, ACompletionDroppedUncalledAnswers503) {
    HttpServer server(one_worker(), [](const HttpRequest&) {
        HttpResponse a;
        a.deferred = [](HttpCompletion) {};  // the work is given up: its completion goes
        return a;
    });
    const std::string r = test::http_exchange(server.port(), "GET /later HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("HTTP/1.1 503"), std::string::npos) << r;
}

TEST(HttpServerDeferred, CompletingAfterTheClientLeftIsHarmless) {
    Pending pending;
    HttpServer server(one_worker(), deferring(pending));
    {
        test::HttpConnection gone(server.port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_TRUE(pending.take());  // and dropped uncalled, as its client goes
    }
    test::HttpConnection left(server.port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    std::optional<HttpCompletion> done = pending.take();
    ASSERT_TRUE(done);
    left.close_now();
    std::this_thread::sleep_for(50ms);
    (*done)(HttpResponse{200, "text/plain", std::string(1 << 20, 'x')});  // more than a socket buffer
    std::this_thread::sleep_for(100ms);
    const std::string r = test::http_exchange(server.port(), "GET /still HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("now /still"), std::string::npos) << r;
}

TEST(HttpServerDeferred, StoppingWithAnswersPendingIsPromptAndCompletingAfterwardsIsHarmless) {
    Pending pending;
    auto server = std::make_unique<HttpServer>(one_worker(), deferring(pending));
    test::HttpConnection waiting(server->port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    std::optional<HttpCompletion> done = pending.take();
    ASSERT_TRUE(done);
    const auto t = Clock::now();
    server.reset();
    EXPECT_LT(Clock::now() - t, 1s) << "the server waited for an answer it had deferred";
    EXPECT_TRUE(waiting.closed_by_server(2s));
    (*done)(HttpResponse{200, "text/plain", "too late\n"});  // the server is gone
    std::optional<HttpCompletion> dropped;  // and one dropped uncalled after it is gone
    std::swap(dropped, done);
    dropped.reset();
}

TEST(HttpServerDeferred, CompletingWhileTheServerStopsIsHarmless) {
    for (int round = 0; round < 20; ++round) {
        Pending pending;
        HttpServerOptions o = one_worker();
        o.waiting = 4;  // the four arrive together
        auto server = std::make_unique<HttpServer>(o, deferring(pending));
        std::vector<std::unique_ptr<test::HttpConnection>> clients;
        for (int i = 0; i < 4; ++i)
            clients.push_back(std::make_unique<test::HttpConnection>(server->port(), "GET /later HTTP/1.1\r\nHost: x\r\n\r\n"));
        std::vector<HttpCompletion> all;
        for (int i = 0; i < 4; ++i)
            if (std::optional<HttpCompletion> d = pending.take()) all.push_back(*d);
        ASSERT_EQ(all.size(), 4u);
        std::thread completer([&] {
            for (const HttpCompletion& d : all) d(HttpResponse{200, "text/plain", "raced\n"});
        });
        server.reset();
        completer.join();
    }
}

TEST(HttpServerDeferred, AnswerBytesWaitsForADeferredAnswer) {
    std::thread completer;
    const HttpHandler handler = [&completer](const HttpRequest&) {
        HttpResponse a;
        a.deferred = [&completer](HttpCompletion done) {
            completer = std::thread([done] {
                std::this_thread::sleep_for(20ms);
                done(HttpResponse{202, "text/plain", "from a thread\n"});
            });
        };
        return a;
    };
    const std::string r = http_answer_bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n", handler);
    completer.join();
    EXPECT_NE(r.find("HTTP/1.1 202 Accepted"), std::string::npos) << r;
    EXPECT_NE(r.find("from a thread"), std::string::npos) << r;
}

}  // namespace
}  // namespace vf::http_deferred_test
