// A change passed to another shard shows in this process's fleet list at once
// (app/serve/fleet/fleet.cpp, Fleet::view): the other shard here is the test's own, whose listing
// takes 600 ms and says what its stream was when it was asked. A listing asked before the change
// and answered after it must not be shown as the fleet's state, neither once it has ended nor
// while it is still under way (the page showed a filter just changed and then the old one again).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/http_server.hpp"
#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"
#include "support/shard_beside_peer.hpp"
#include "support/shard_names.hpp"

namespace vf::fleet_change_view_test {
namespace {

using namespace test;
using namespace std::chrono_literals;

const std::string kToken = "change-view-test-token-0123456789";

// Shard 1 of 2 with one stream, whose filter a PUT changes at once and whose listing is slow.
class SlowListingPeer {
public:
    explicit SlowListingPeer(const std::string& theirs) {
        HttpServerOptions o;
        o.workers = 8;
        server_ = std::make_unique<HttpServer>(o, [this, theirs](const HttpRequest& r) {
            if (r.path == "/fleet/shard") {
                const nlohmann::json stream = this->stream(theirs);  // as it is when asked
                ++listings_;
                std::this_thread::sleep_for(600ms);
                return HttpResponse{200, "application/json",
                                    nlohmann::json{{"instance", "slow"}, {"pod", "slow"}, {"shard", {{"index", 1}, {"count", 2}}},
                                                   {"streams", nlohmann::json::array({stream})}}.dump()};
            }
            if (r.method == "PUT" && r.path == "/streams/" + theirs + "/filter") {
                const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    filter_ = body.is_object() ? body.value("filter", "") : "";
                }
                return HttpResponse{200, "application/json", this->stream(theirs).dump()};
            }
            return HttpResponse{404, "application/json", "{\"error\": \"no such thing\"}"};
        });
    }
    int port() const { return server_->port(); }
    int listings() const { return listings_.load(); }

private:
    nlohmann::json stream(const std::string& name) {
        std::lock_guard<std::mutex> lock(mutex_);
        return {{"name", name}, {"state", "running"}, {"filter", filter_}};
    }
    std::mutex mutex_;
    std::string filter_ = "sobel";
    std::atomic<int> listings_{0};
    std::unique_ptr<HttpServer> server_;
};

std::string request(int port, const std::string& method, const std::string& target, const std::string& body = "") {
    return http_exchange(port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer " +
                                   kToken + "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                   "\r\n\r\n" + body);
}

// The filter the fleet list gives `name`, "" if it lists no such stream.
std::string listed_filter(int port, const std::string& name) {
    const std::string answer = request(port, "GET", "/streams?scope=fleet");
    const nlohmann::json view = nlohmann::json::parse(answer.substr(std::min(answer.size(), answer.find("\r\n\r\n") + 4)), nullptr, false);
    if (!view.is_object()) return "";
    for (const auto& s : view.value("streams", nlohmann::json::array()))
        if (s.value("name", "") == name) return s.value("filter", "");
    return "";
}

TEST(FleetChangeView, AChangePassedToAnotherShardIsInTheFleetListAtOnce) {
    const std::string mine = name_in_shard("cam", 0, 2), theirs = name_in_shard("cam", 1, 2);
    SlowListingPeer peer(theirs);
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "defaults: {output: 'null', filter: sobel}\nstreams:\n  - {name: " << mine
                                         << ", input: 'pattern://?size=96x64&rate=25&motion=checker'}\n";
    const int port = free_port();
    std::unique_ptr<ChildProcess> serve = start_shard_beside_peer(dir, port, peer.port(), kToken);
    ASSERT_TRUE(serve->wait_for_log("control API: http://", 30)) << serve->log();
    for (int i = 0; i < 100 && listed_filter(port, theirs) != "sobel"; ++i) std::this_thread::sleep_for(100ms);
    ASSERT_EQ(listed_filter(port, theirs), "sobel") << serve->log();

    for (int round = 0; round < 6; ++round) {
        const std::string want = round % 2 ? "sobel" : "gaussian=sigma=1";
        // A listing under way as the change is made: one asked after the last list's second.
        std::this_thread::sleep_for(1100ms);
        const int before = peer.listings();
        std::thread listing([port, theirs] { listed_filter(port, theirs); });
        for (int i = 0; i < 100 && peer.listings() == before; ++i) std::this_thread::sleep_for(5ms);
        const std::string put = request(port, "PUT", "/streams/" + theirs + "/filter", nlohmann::json{{"filter", want}}.dump());
        EXPECT_EQ(put.rfind("HTTP/1.1 200", 0), 0u) << put;
        if (round % 2 == 0) listing.join();  // the stale listing has ended; in the other rounds it is still under way
        EXPECT_EQ(listed_filter(port, theirs), want) << "round " << round;
        if (listing.joinable()) listing.join();
    }
    serve->signal(SIGTERM);
    EXPECT_EQ(serve->wait(30), 0) << serve->log();
}

}  // namespace
}  // namespace vf::fleet_change_view_test
