// Requests that `vfilter serve --peers` passes to another shard (app/serve/fleet/fleet_forward.cpp) against a
// peer that hangs: it answers the fleet's GET /fleet/shard, so it is known as shard 1 of 2, and
// then takes every forwarded request and never answers it. The forwards wait on the fleet's own
// threads, not on the HTTP server's workers: with more of them pending than serve has workers,
// this shard's own API still answers at once; each forward ends with 502 within its deadline; a
// relayed preview takes a worker only once its body comes; past the forwards one shard may have
// pending, the next is refused at once with Retry-After; a client that leaves gives its place
// back; SIGTERM with forwards pending ends promptly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <csignal>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/http_server.hpp"
#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"
#include "support/shard_beside_peer.hpp"
#include "support/shard_names.hpp"

namespace vf::fleet_forward_test {
namespace {

using namespace test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kToken = "forward-test-token-0123456789";
constexpr int kPerShard = 16;  // forwards one shard may have pending (FleetOptions::forwards_per_shard)

std::string name_in_shard(const std::string& prefix, int k) { return test::name_in_shard(prefix, k, 2); }

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Shard 1 of 2 as the fleet sees it, which holds every other request until the test ends, but for
// the preview of `healthy`: parts of a body made while it is sent.
class HungPeer {
public:
    HungPeer(const std::string& theirs, const std::string& healthy) {
        HttpServerOptions o;
        o.workers = 64;  // it must take every forward serve sends, to hold each one
        o.waiting = 64;
        o.timeout_s = 30;
        server_ = std::make_unique<HttpServer>(o, [this, theirs, healthy](const HttpRequest& r) {
            if (r.path == "/streams/" + healthy + "/preview.mjpg") {
                HttpResponse a{200, "multipart/x-mixed-replace; boundary=vfilterframe", ""};
                a.stream = [](const HttpBodyWriter& write) {
                    for (int i = 0; i < 50 && write("part " + std::to_string(i) + "\n"); ++i) std::this_thread::sleep_for(100ms);
                };
                return a;
            }
            if (r.path == "/fleet/shard") {
                const nlohmann::json streams = nlohmann::json::array({{{"name", theirs}, {"state", "running"}}});
                return HttpResponse{200, "application/json",
                                    nlohmann::json{{"instance", "hung"}, {"pod", "hung"}, {"shard", {{"index", 1}, {"count", 2}}}, {"streams", streams}}.dump()};
            }
            std::unique_lock<std::mutex> lock(mutex_);
            ++held_;
            released_.wait_for(lock, 60s, [this] { return release_; });
            return HttpResponse{200, "application/json", "{}"};
        });
    }
    ~HungPeer() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            release_ = true;
        }
        released_.notify_all();
        server_.reset();
    }
    int port() const { return server_->port(); }
    int held() {
        std::lock_guard<std::mutex> lock(mutex_);
        return held_;
    }

private:
    std::mutex mutex_;
    std::condition_variable released_;
    bool release_ = false;
    int held_ = 0;
    std::unique_ptr<HttpServer> server_;
};

struct Reply {
    int status = -1;
    std::string text;
    double ms = 0;
};

Reply status_of(const std::string& response, double ms) {
    Reply r;
    r.text = response;
    r.ms = ms;
    if (response.rfind("HTTP/1.1 ", 0) == 0) r.status = std::atoi(response.c_str() + 9);
    return r;
}

class HungPeerForward : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        std::ofstream(dir + "/streams.yaml") << "defaults: {output: 'null', filter: sobel}\nstreams:\n  - {name: " << mine
                                             << ", input: 'pattern://?size=96x64&rate=25&motion=checker'}\n";
        port = free_port();
        serve = start_shard_beside_peer(dir, port, peer.port(), kToken);
        ASSERT_TRUE(serve->wait_for_log("control API: http://", 30)) << serve->log();
        bool known = false;
        for (int i = 0; i < 100 && !known; ++i) {
            known = request("GET", "/streams?scope=fleet").text.find(theirs) != std::string::npos &&
                    request("GET", "/streams").text.find("running") != std::string::npos;
            if (!known) std::this_thread::sleep_for(100ms);
        }
        ASSERT_TRUE(known) << "the hung peer is known as shard 1 and " << mine << " runs: " << serve->log();
    }
    void TearDown() override {
        if (serve && serve->running()) {
            serve->signal(SIGTERM);
            serve->wait(30);
        }
    }
    std::string head(const std::string& method, const std::string& target, const std::string& body = "") const {
        return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer " + kToken +
               "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    }
    Reply request(const std::string& method, const std::string& target, const std::string& body = "") const {
        const auto t = Clock::now();
        const std::string response = http_exchange(port, head(method, target, body));
        return status_of(response, ms_since(t));
    }
    // `n` forwarded requests for the hung peer's stream, each left waiting for its answer.
    std::vector<std::unique_ptr<HttpConnection>> forwards(int n) const {
        std::vector<std::unique_ptr<HttpConnection>> pending;
        for (int i = 0; i < n; ++i) pending.push_back(std::make_unique<HttpConnection>(port, head("GET", "/streams/" + theirs)));
        return pending;
    }
    // Waits until the peer holds `n` requests (serve has sent them on).
    bool peer_holds(int n, std::chrono::milliseconds timeout = 5s) {
        for (const auto until = Clock::now() + timeout; Clock::now() < until; std::this_thread::sleep_for(20ms))
            if (peer.held() >= n) return true;
        return false;
    }

    const std::string mine = name_in_shard("cam", 0), theirs = name_in_shard("cam", 1), healthy = name_in_shard("porch", 1);
    HungPeer peer{theirs, healthy};
    std::string dir;
    int port = 0;
    std::unique_ptr<ChildProcess> serve;
};

TEST_F(HungPeerForward, TheShardsOwnApiAnswersWhileMoreForwardsWaitThanItHasWorkers) {
    const int n = 16;  // serve's API has 4 + --max-previews (8) + event streams (4) workers
    auto pending = forwards(n);
    ASSERT_TRUE(peer_holds(n)) << "serve sent on " << peer.held() << " of " << n;
    const auto held = Clock::now();  // serve had every forward by now: each ends within 9 s of this
    std::vector<double> own;
    for (int round = 0; round < 10; ++round) {
        for (const Reply& r : {request("GET", "/streams"), request("GET", "/metrics"),
                               request("PUT", "/streams/" + mine + "/filter", round % 2 ? "sobel" : "gaussian=sigma=1")}) {
            EXPECT_EQ(r.status, 200) << r.text.substr(0, 300);
            own.push_back(r.ms);
        }
    }
    std::sort(own.begin(), own.end());
    std::printf("own requests with %d forwards pending: median %.1f ms, slowest %.1f ms\n", n, own[own.size() / 2], own.back());
    // Generous for a loaded machine or a sanitizer build; a worker held by a forward holds these for 9 s.
    EXPECT_LT(own.back(), 4000.0) << "the slowest of " << own.size() << " own requests, median " << own[own.size() / 2] << " ms";
    for (auto& c : pending) {
        const std::string got = c->read_until("\r\n\r\n", 12s);
        const Reply r = status_of(got, ms_since(held));
        EXPECT_EQ(r.status, 502) << got.substr(0, 400);
        EXPECT_LT(r.ms, 10500.0) << "each forward ends within its 9 s";
        EXPECT_NE(got.find("did not answer"), std::string::npos) << got.substr(0, 400);
        EXPECT_NE(got.find("shard 1/2"), std::string::npos) << got.substr(0, 400);
    }
    EXPECT_TRUE(serve->running()) << serve->log();
}

TEST_F(HungPeerForward, RelayedPreviewsHoldAWorkerOnlyOnceTheirBodyComes) {
    std::vector<std::unique_ptr<HttpConnection>> opening;  // 7 of the 8 previews' places (--max-previews)
    for (int i = 0; i < 7; ++i) opening.push_back(std::make_unique<HttpConnection>(port, head("GET", "/streams/" + theirs + "/preview.mjpg")));
    auto pending = forwards(5);
    ASSERT_TRUE(peer_holds(12)) << "serve sent on " << peer.held() << " of 12";
    const auto held = Clock::now();  // serve had every opening by now: each ends within 9 s of this
    for (const char* target : {"/streams", "/metrics"}) {
        const Reply r = request("GET", target);
        EXPECT_EQ(r.status, 200);
        EXPECT_LT(r.ms, 4000.0) << target << " waited behind previews that were still opening (they hold 9 s)";
    }
    HttpConnection watched(port, head("GET", "/streams/" + healthy + "/preview.mjpg"));
    const std::string got = watched.read_until("part 2", 5s);
    EXPECT_NE(got.find("HTTP/1.1 200 OK"), std::string::npos) << got.substr(0, 400);
    EXPECT_NE(got.find("X-Vfilter-Shard: 1"), std::string::npos) << got.substr(0, 400);
    EXPECT_NE(got.find("part 2"), std::string::npos) << "the relayed body comes while it is made: " << got.substr(0, 400);
    watched.close_now();
    for (auto& c : opening) {
        const std::string answer = c->read_until("\r\n\r\n", 12s);
        EXPECT_EQ(status_of(answer, 0).status, 502) << answer.substr(0, 400);
        EXPECT_LT(ms_since(held), 10500.0) << "a preview's opening ends within 9 s";
    }
}

TEST_F(HungPeerForward, PastTheShardsLimitAForwardIsRefusedAtOnceWithRetryAfter) {
    auto pending = forwards(kPerShard);
    ASSERT_TRUE(peer_holds(kPerShard)) << "serve sent on " << peer.held() << " of " << kPerShard;
    const Reply refused = request("GET", "/streams/" + theirs);
    EXPECT_EQ(refused.status, 503) << refused.text.substr(0, 400);
    EXPECT_LT(refused.ms, 4000.0) << "refused at once, not after the peer's 9 s deadline";
    EXPECT_NE(refused.text.find("Retry-After: "), std::string::npos) << refused.text.substr(0, 400);
    EXPECT_NE(refused.text.find("shard 1/2 (http://127.0.0.1:" + std::to_string(peer.port()) + ")"), std::string::npos)
        << "the refusal names the busy peer: " << refused.text.substr(0, 400);
    const std::string metrics = request("GET", "/metrics").text;
    EXPECT_NE(metrics.find("vfilter_fleet_forwards_pending{shard=\"1\"} " + std::to_string(kPerShard)), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("vfilter_fleet_forwards_refused_total{shard=\"1\"} 1"), std::string::npos) << metrics;
    EXPECT_EQ(request("GET", "/streams").status, 200);
}

TEST_F(HungPeerForward, AClientThatLeavesGivesItsPlaceBackWithinTheDeadline) {
    {
        auto pending = forwards(kPerShard);
        ASSERT_TRUE(peer_holds(kPerShard));
    }  // every client leaves while its forward waits
    const auto left = Clock::now();
    bool back = false;
    std::string metrics;
    while (!back && ms_since(left) < 11000) {
        metrics = request("GET", "/metrics").text;
        back = metrics.find("vfilter_fleet_forwards_pending{shard=\"1\"} 0") != std::string::npos;
        if (!back) std::this_thread::sleep_for(200ms);
    }
    EXPECT_TRUE(back) << metrics;
    auto again = forwards(kPerShard);  // every place is free again: none is refused
    ASSERT_TRUE(peer_holds(2 * kPerShard));
    EXPECT_TRUE(serve->running()) << serve->log();
}

TEST_F(HungPeerForward, SigtermWithForwardsPendingEndsPromptly) {
    auto pending = forwards(12);
    ASSERT_TRUE(peer_holds(12));
    const auto t = Clock::now();
    serve->signal(SIGTERM);
    EXPECT_EQ(serve->wait(30), 0) << serve->log();
    EXPECT_LT(ms_since(t), 5000.0) << "serve waited for the hung peer: " << serve->log();
    for (auto& c : pending) EXPECT_TRUE(c->closed_by_server(2s)) << "a client whose forward was pending is let go";
}

}  // namespace
}  // namespace vf::fleet_forward_test
