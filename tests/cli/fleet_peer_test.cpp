// A peer of `vfilter serve --peers` that answers what no vfilter would: a malformed fleet list, a
// /live message for a tile nobody asked for ("tile": "x", the finding that aborted a shard), and a
// length beyond any message. The fake peer is a real HTTP server in this process; serve must drop
// that peer's answer with a reason and go on answering.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/serve/serve_config.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"
#include "support/shard_beside_peer.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;

const std::string kPeerToken = "peer-test-token-0123456789";

std::string be32(uint32_t n) {
    const uint32_t big = htonl(n);
    return std::string(reinterpret_cast<const char*>(&big), 4);
}
std::string message(const std::string& header, const std::string& bytes = "") {
    return be32(static_cast<uint32_t>(header.size())) + header + be32(static_cast<uint32_t>(bytes.size())) + bytes;
}

// The first name that shard 1 of 2 serves.
std::string name_of_shard_one() {
    for (int i = 0;; ++i)
        if (shard_of("cam" + std::to_string(i), 2) == 1) return "cam" + std::to_string(i);
}

class BadPeer : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPeer, ItsAnswerIsDroppedAndServeGoesOn) {
    const std::string what = GetParam();
    const std::string theirs = name_of_shard_one();
    std::atomic<int> live_asked{0};
    HttpServerOptions po;
    po.workers = 4;
    HttpServer peer(po, [&](const HttpRequest& r) {
        HttpResponse a;
        a.content_type = "application/json";
        if (r.path == "/fleet/shard") {
            nlohmann::json streams = nlohmann::json::array({{{"name", theirs}, {"state", "running"}}});
            if (what == "list") streams = nlohmann::json::array({42, nullptr});
            a.body = nlohmann::json{{"instance", "fake"}, {"pod", "fake"}, {"shard", {{"index", 1}, {"count", 2}}}, {"streams", streams}}.dump();
            return a;
        }
        if (r.path == "/live") {
            ++live_asked;
            a.content_type = "application/octet-stream";
            const std::string bytes = what == "tile" ? message(R"({"tile": "x", "type": "init"})")
                                      : what == "length" ? be32(0x7fffffff) + std::string(64, 'x')
                                                         : message(R"({"tile": 7, "type": "gone"})");
            a.stream = [bytes](const HttpBodyWriter& write) {
                write(bytes);
                for (int i = 0; i < 30 && write(""); ++i) std::this_thread::sleep_for(100ms);
            };
            return a;
        }
        a.status = 404;
        return a;
    });
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams: []\n";
    const int port = free_port();
    const std::unique_ptr<ChildProcess> serve = start_shard_beside_peer(dir, port, peer.port(), kPeerToken);
    ASSERT_TRUE(serve->wait_for_log("control API: http://", 30)) << serve->log();
    const std::string auth = "Host: 127.0.0.1\r\nAuthorization: Bearer " + kPeerToken + "\r\nConnection: close\r\n";
    if (what == "list") {
        std::string fleet;
        for (int i = 0; i < 40; ++i) {
            fleet = http_exchange(port, "GET /streams?scope=fleet HTTP/1.1\r\n" + auth + "\r\n");
            if (fleet.find("not a vfilter serve's") != std::string::npos) break;
            std::this_thread::sleep_for(100ms);
        }
        EXPECT_NE(fleet.find("200 OK"), std::string::npos) << fleet;
        EXPECT_NE(fleet.find("not a vfilter serve's"), std::string::npos) << "the malformed list is dropped with a reason: " << fleet;
    } else {
        // Wait until the fake peer is known as shard 1, then ask for its tile through serve.
        for (int i = 0; i < 40; ++i) {
            if (http_exchange(port, "GET /streams?scope=fleet HTTP/1.1\r\n" + auth + "\r\n").find(theirs) != std::string::npos) break;
            std::this_thread::sleep_for(100ms);
        }
        HttpConnection page(port, "GET /live?streams=" + theirs + " HTTP/1.1\r\n" + auth + "\r\n");
        const std::string got = page.read_until("dropped", 10s);
        EXPECT_NE(got.find("\"gone\""), std::string::npos) << got.substr(0, 400);
        EXPECT_NE(got.find("dropped"), std::string::npos) << "the tile is gone with the reason: " << got.substr(0, 400);
        EXPECT_GE(live_asked.load(), 1);
    }
    EXPECT_TRUE(serve->running()) << serve->log();
    EXPECT_NE(http_exchange(port, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").find("200 OK"), std::string::npos);
    serve->signal(SIGTERM);
    EXPECT_EQ(serve->wait(20), 0) << serve->log();
}

INSTANTIATE_TEST_SUITE_P(Fleet, BadPeer, ::testing::Values("list", "tile", "length", "unasked"));

}  // namespace
}  // namespace vf
