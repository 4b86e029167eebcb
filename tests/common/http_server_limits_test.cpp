// The HTTP server (common/http_server.cpp) against clients that send too much, too slowly or too
// often: a request line or a head over the limit, a chunked body over the limit and a body the
// screen refuses are answered without being read, and memory does not grow with what was sent; a
// slow client is dropped at its deadline while probes keep answering; with every worker busy and
// the wait list full, requests get 503 at once and probes still answer; connections beyond the cap
// are closed without reaching a worker.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/http_server.hpp"
#include "support/http_client.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;
using LimitsClock = std::chrono::steady_clock;

// The process's resident memory (VmRSS), in bytes.
size_t resident_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

int answer_status(const std::string& answer) {
    return answer.size() >= 12 && answer.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(answer.c_str() + 9) : -1;
}

HttpServerOptions limited() {
    HttpServerOptions o;
    o.timeout_s = 1;
    return o;
}

// A handler that counts its calls.
struct Counted {
    std::atomic<int> calls{0};
    HttpHandler handler() {
        return [this](const HttpRequest& r) {
            ++calls;
            return HttpResponse{200, "text/plain", "seen " + r.path + "\n"};
        };
    }
};

constexpr size_t kLimitMiB = 1 << 20;

TEST(HttpServer, ARequestLineWithoutAnEndIsRefusedWithoutBeingKept) {
    Counted counted;
    HttpServer server(limited(), counted.handler());
    const size_t before = resident_bytes();
    const test::FloodResult r = test::http_flood(server.port(), "GET /", std::string(64 * 1024, 'a'), 16);  // 1 MiB, no newline
    const int status = answer_status(r.received);
    EXPECT_TRUE(status == 414 || status == 431 || status == 400) << r.received.substr(0, 300);
    EXPECT_TRUE(r.closed);
    EXPECT_LT(resident_bytes(), before + 16 * kLimitMiB);
    EXPECT_EQ(counted.calls.load(), 0);
}

TEST(HttpServer, AChunkedBodyOverTheLimitIsRefusedAsItComes) {
    Counted counted;
    HttpServer server(limited(), counted.handler());
    const size_t before = resident_bytes();
    const std::string chunk = "10000\r\n" + std::string(64 * 1024, 'x') + "\r\n";
    const test::FloodResult r = test::http_flood(
        server.port(), "POST /streams HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", chunk, 1600);  // 100 MiB
    EXPECT_EQ(answer_status(r.received), 413) << r.received.substr(0, 300);
    EXPECT_TRUE(r.closed);
    EXPECT_LT(r.sent, 32 * kLimitMiB) << "the server went on reading a body it had refused";
    EXPECT_LT(resident_bytes(), before + 16 * kLimitMiB);
    EXPECT_EQ(counted.calls.load(), 0);
}

TEST(HttpServer, TheScreenRefusesARequestBeforeItsBodyIsRead) {
    Counted counted;
    std::atomic<int> screened{0};
    HttpServerOptions o = limited();
    o.screen = [&](const HttpRequest& head) -> std::optional<HttpResponse> {
        ++screened;
        if (!head.body.empty()) ADD_FAILURE() << "the screen saw a body";
        if (head.authorization == "Bearer ok") return std::nullopt;
        return HttpResponse{401, "text/plain", "401 Unauthorized\n"};
    };
    HttpServer server(o, counted.handler());
    test::HttpConnection refused(server.port(), "POST /streams HTTP/1.1\r\nHost: x\r\nContent-Length: 52428800\r\n\r\n");
    ASSERT_TRUE(refused.open());
    EXPECT_EQ(answer_status(refused.read_until("401 Unauthorized\n", 2s)), 401) << refused.read_until("", 0ms);
    EXPECT_TRUE(refused.closed_by_server(3s)) << "a body announced and not read: the connection cannot go on";
    EXPECT_EQ(counted.calls.load(), 0);

    // Let through, with Expect: 100-continue: the client hears it may send before it does.
    test::HttpConnection allowed(server.port(), "POST /streams HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\n"
                                                "Expect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    EXPECT_EQ(answer_status(allowed.read_until("\r\n\r\n", 2s)), 100);
    ASSERT_TRUE(allowed.send("body"));
    EXPECT_NE(allowed.read_until("seen /streams", 2s).find("HTTP/1.1 200 OK"), std::string::npos);
    EXPECT_EQ(counted.calls.load(), 1);
    EXPECT_EQ(screened.load(), 2);
}

TEST(HttpServer, SlowClientsAreDroppedAtTheirDeadlineWhileProbesAnswer) {
    HttpServerOptions o = limited();
    o.request_deadline_ms = 1500;
    o.workers = 2;
    o.inline_paths = {"/healthz"};
    HttpServer server(o, [](const HttpRequest& r) { return HttpResponse{200, "text/plain", r.path == "/healthz" ? "ok\n" : "slow\n"}; });
    const std::string request = "GET /slow HTTP/1.1\r\nHost: x\r\nX-Padding: " + std::string(100, 'p') + "\r\n\r\n";
    std::vector<std::unique_ptr<test::HttpConnection>> slow;
    for (int i = 0; i < 64; ++i) slow.push_back(std::make_unique<test::HttpConnection>(server.port(), ""));
    std::atomic<bool> done{false};
    std::thread trickle([&] {  // one byte of each request every 500 ms
        for (size_t at = 0; at < request.size() && !done; ++at) {
            for (auto& c : slow) c->send(request.substr(at, 1));
            for (int i = 0; i < 10 && !done; ++i) std::this_thread::sleep_for(50ms);
        }
    });
    std::vector<double> ms;
    const std::string probe = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    for (int i = 0; i < 100; ++i) {  // about 2.5 s: past the slow requests' deadline
        const auto t = LimitsClock::now();
        EXPECT_EQ(answer_status(test::http_exchange(server.port(), probe)), 200);
        ms.push_back(std::chrono::duration<double, std::milli>(LimitsClock::now() - t).count());
        std::this_thread::sleep_for(20ms);
    }
    std::sort(ms.begin(), ms.end());
    // A probe held behind a stalled client would wait for its 1.5 s deadline; two thirds of that
    // tells the two apart on a loaded machine under a sanitizer too, and the median stays short.
    EXPECT_LE(ms[50], 200.0) << "median of /healthz";
    EXPECT_LE(ms[98], 1000.0) << "p99 of /healthz beside 64 slow clients; median " << ms[50] << " ms";
    int closed = 0;
    for (auto& c : slow) closed += c->closed_by_server(3s) ? 1 : 0;
    done = true;
    trickle.join();
    EXPECT_EQ(closed, 64) << "slow requests outlived their deadline";
}

TEST(HttpServer, ProbesAnswerWhileEveryWorkerIsBusyAndAFullWaitListGets503) {
    HttpServerOptions o = limited();
    o.workers = 2;
    o.waiting = 2;
    o.inline_paths = {"/healthz"};
    std::mutex mutex;
    std::condition_variable changed;
    bool release = false;
    std::atomic<int> inside{0};
    HttpServer server(o, [&](const HttpRequest& r) {
        if (r.path == "/healthz") return HttpResponse{200, "text/plain", "ok\n"};
        ++inside;
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return release; });
        return HttpResponse{200, "text/plain", "done\n"};
    });
    const std::string ask = "GET /work HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    const std::string probe = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    std::vector<std::unique_ptr<test::HttpConnection>> held;
    for (int i = 0; i < 2; ++i) held.push_back(std::make_unique<test::HttpConnection>(server.port(), ask));
    for (int i = 0; i < 250 && inside < 2; ++i) std::this_thread::sleep_for(20ms);
    ASSERT_EQ(inside.load(), 2);
    for (int i = 0; i < 2; ++i) held.push_back(std::make_unique<test::HttpConnection>(server.port(), ask));
    // The one I/O thread reads requests in the order their bytes came: once this probe is
    // answered, the two above wait for a worker.
    auto t = LimitsClock::now();
    EXPECT_EQ(answer_status(test::http_exchange(server.port(), probe)), 200);
    EXPECT_LT(LimitsClock::now() - t, 1s);
    t = LimitsClock::now();
    const std::string fifth = test::http_exchange(server.port(), ask);
    EXPECT_EQ(answer_status(fifth), 503) << fifth;
    EXPECT_NE(fifth.find("Retry-After: "), std::string::npos) << fifth;
    EXPECT_LT(LimitsClock::now() - t, 1s);
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
    }
    changed.notify_all();
    for (auto& c : held) EXPECT_NE(c->read_until("done\n").find("HTTP/1.1 200 OK"), std::string::npos);
    EXPECT_EQ(inside.load(), 4);
}

TEST(HttpServer, ConnectionsBeyondTheCapAreClosedWithoutReachingAWorker) {
    Counted counted;
    HttpServerOptions o = limited();
    o.timeout_s = 5;  // the four stay open while the fifth tries
    o.max_connections = 4;
    HttpServer server(o, counted.handler());
    std::vector<std::unique_ptr<test::HttpConnection>> four;
    for (int i = 0; i < 4; ++i) {
        four.push_back(std::make_unique<test::HttpConnection>(server.port(), "GET /kept HTTP/1.1\r\nHost: x\r\n\r\n"));
        EXPECT_NE(four.back()->read_until("seen /kept\n").find("HTTP/1.1 200 OK"), std::string::npos);
    }
    const std::string ask = "GET /fifth HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    const std::string fifth = test::http_exchange(server.port(), ask);
    EXPECT_TRUE(fifth.empty() || answer_status(fifth) == 503) << fifth;
    EXPECT_EQ(counted.calls.load(), 4);
    four.clear();  // they leave: their places come back
    bool served = false;
    for (int i = 0; i < 100 && !served; ++i) {
        served = answer_status(test::http_exchange(server.port(), ask)) == 200;
        if (!served) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(served);
}

TEST(HttpServer, HeadsOverTheLimitAre431AndLinesOverItAre414) {
    Counted counted;
    HttpServer server(limited(), counted.handler());
    const auto fillers = [](int n) {  // about 75 bytes each
        std::string lines;
        for (int i = 0; i < n; ++i) lines += "X-Filler-" + std::to_string(i) + ": " + std::string(60, 'f') + "\r\n";
        return lines;
    };
    std::string r = test::http_exchange(server.port(), "GET /x HTTP/1.1\r\nHost: x\r\n" + fillers(200) + "\r\n");
    EXPECT_EQ(answer_status(r), 431) << r.substr(0, 300);
    r = test::http_exchange(server.port(), "GET /" + std::string(10000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(answer_status(r), 414) << r.substr(0, 300);
    EXPECT_EQ(counted.calls.load(), 0);
    r = test::http_exchange(server.port(), "GET /x HTTP/1.1\r\nHost: x\r\n" + fillers(80) + "Connection: close\r\n\r\n");
    EXPECT_EQ(answer_status(r), 200) << "a head within the limit: " << r.substr(0, 300);
}

}  // namespace
}  // namespace vf
