// The fleet view (GET /streams?scope=fleet) against a peer of --peers that answers the fleet's
// GET /fleet/shard one byte at a time: a refresh gives it up after the peers' timeout (1.5 s),
// and views that come together never queue behind each other's refreshes, so the API's workers
// are held no longer than one refresh and this shard's own requests answer meanwhile. Before,
// each view refreshed in turn for the call's 8 s: 14 views took 15 to 103 s and a local request
// 12.9 s.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/run_command.hpp"
#include "support/shard_beside_peer.hpp"
#include "support/serve_api.hpp"
#include "support/shard_names.hpp"

namespace vf::fleet_view_test {
namespace {

using namespace test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kToken = "fleet-view-test-token-0123456789";

std::string name_in_shard(const std::string& prefix, int k) { return test::name_in_shard(prefix, k, 2); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Accepts connections on loopback and, to each, sends the head of an answer and then one byte
// of its body every 200 ms, until the test ends. `as_shard`: it answers the fleet's GET
// /fleet/shard at once as that shard of two would (so that it is known as that shard's address),
// and trickles only what else it is asked.
class TricklingPeer {
public:
    explicit TricklingPeer(int as_shard = -1) : as_shard_(as_shard) {
        listener_ = listen_on_loopback(64, &port_);
        accepting_ = std::thread([this] {
            for (;;) {
                const int c = accept(listener_, nullptr, nullptr);
                if (c < 0) return;
                talkers_.emplace_back([this, c] { trickle(c); });
            }
        });
    }
    ~TricklingPeer() {
        stop_ = true;
        shutdown(listener_, SHUT_RDWR);
        close(listener_);
        accepting_.join();
        for (auto& t : talkers_) t.join();
    }
    int port() const { return port_; }

private:
    void trickle(int c) {
        char request[4096];
        const ssize_t got = recv(c, request, sizeof request, 0);
        if (as_shard_ >= 0 && got > 0 && std::string(request, static_cast<size_t>(got)).rfind("GET /fleet/shard ", 0) == 0) {
            const std::string body = R"({"instance": "trickler", "pod": "trickler", "shard": {"index": )" + std::to_string(as_shard_) +
                                     R"(, "count": 2}, "streams": []})";
            const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                       "\r\nConnection: close\r\n\r\n" + body;
            send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
            close(c);
            return;
        }
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
        send(c, head.data(), head.size(), MSG_NOSIGNAL);
        while (!stop_ && send(c, "{", 1, MSG_NOSIGNAL) == 1) std::this_thread::sleep_for(200ms);
        close(c);
    }
    int as_shard_ = -1;
    int listener_ = -1, port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread accepting_;
    std::vector<std::thread> talkers_;
};

std::string request(int port, const std::string& target) { return api_get(port, target, kToken).text; }

// serve as shard 0 of 2 serving `mine`, its API on `port`, with `peer` the fleet's only other
// address; once the background refresh has met the peer (as shard 1's address where it answers
// as one).
void start_beside(const TricklingPeer& peer, const std::string& mine, int port, std::unique_ptr<ChildProcess>* serve) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: " << mine << ", input: 'pattern://?size=96x64&rate=25', output: 'null'}\n";
    *serve = start_shard_beside_peer(dir, port, peer.port(), kToken);
    ASSERT_TRUE((*serve)->wait_for_log("control API: http://", 30)) << (*serve)->log();
    std::this_thread::sleep_for(2s);
}

TEST(TricklingPeer, FleetViewsHoldTheWorkersNoLongerThanOneRefresh) {
    TricklingPeer peer;
    const std::string mine = name_in_shard("cam", 0);
    const int port = free_port();
    std::unique_ptr<ChildProcess> serve;
    ASSERT_NO_FATAL_FAILURE(start_beside(peer, mine, port, &serve));

    // 14 views at once: more than the API's workers (4 and --max-previews 8).
    std::vector<std::future<double>> views;
    for (int i = 0; i < 14; ++i)
        views.push_back(std::async(std::launch::async, [port] {
            const auto t = Clock::now();
            const std::string answer = request(port, "/streams?scope=fleet");
            EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer.substr(0, 200);
            return seconds_since(t);
        }));
    std::this_thread::sleep_for(300ms);
    const auto local = Clock::now();
    const std::string own = request(port, "/streams/" + mine);
    const double local_s = seconds_since(local);
    EXPECT_EQ(own.rfind("HTTP/1.1 200", 0), 0u) << own.substr(0, 200);
    EXPECT_LT(local_s, 4.0) << "this shard's own request waited behind the fleet views";
    double slowest = 0;
    for (auto& v : views) slowest = std::max(slowest, v.get());
    EXPECT_LT(slowest, 5.0) << "a view waited behind other views' refreshes";

    // SIGTERM while views wait on the peer: serve ends promptly.
    for (int i = 0; i < 6; ++i) views[i] = std::async(std::launch::async, [port] { request(port, "/streams?scope=fleet"); return 0.0; });
    std::this_thread::sleep_for(300ms);
    const auto stop = Clock::now();
    serve->signal(SIGTERM);
    EXPECT_EQ(serve->wait(30), 0) << serve->log();
    EXPECT_LT(seconds_since(stop), 10.0);
    for (int i = 0; i < 6; ++i) views[i].get();
}

// Listings that ask every shard at the time of the request (GET /events?scope=fleet,
// /streams/NAME/recordings?scope=fleet): while a shard trickles, at most two wait on it and the
// others are refused at once with 503, so that this shard's own requests still find a worker.
TEST(TricklingPeer, FleetListingsAskedMeanwhileAreRefusedAndTheWorkersStayFree) {
    TricklingPeer peer(1);
    const std::string mine = name_in_shard("cam", 0);
    const int port = free_port();
    std::unique_ptr<ChildProcess> serve;
    ASSERT_NO_FATAL_FAILURE(start_beside(peer, mine, port, &serve));
    std::vector<std::future<std::pair<int, double>>> listings;
    for (int i = 0; i < 24; ++i)
        listings.push_back(std::async(std::launch::async, [port, i, &mine] {
            const auto t = Clock::now();
            const std::string answer =
                request(port, i % 2 ? "/events?scope=fleet" : "/streams/" + mine + "/recordings?scope=fleet");
            return std::pair<int, double>(answer.size() > 12 ? std::atoi(answer.c_str() + 9) : -1, seconds_since(t));
        }));
    std::this_thread::sleep_for(300ms);
    const auto local = Clock::now();
    const std::string own = request(port, "/streams/" + mine);
    EXPECT_EQ(own.rfind("HTTP/1.1 200", 0), 0u) << own.substr(0, 200);
    EXPECT_LT(seconds_since(local), 1.0) << "this shard's own request waited behind the fleet listings";
    int answered = 0, refused = 0;
    for (auto& l : listings) {
        const auto [status, seconds] = l.get();
        if (status == 200) ++answered;
        else if (status == 503) {
            ++refused;
            EXPECT_LT(seconds, 1.0) << "a refusal came only after waiting";
        } else {
            ADD_FAILURE() << "status " << status;
        }
    }
    EXPECT_GE(answered, 2) << "the listings with a place wait for the peer's timeout and answer";
    EXPECT_GE(refused, 12) << "more than two waited on the trickling shard at once";
}

}  // namespace
}  // namespace vf::fleet_view_test
