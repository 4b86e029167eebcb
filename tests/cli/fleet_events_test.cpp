// GET /events?scope=fleet (app/serve/http/fleet_events.cpp): two `vfilter serve` processes on
// loopback as shards 0 and 1 of one camera list, each watching a camera whose picture is dark by
// its entry's threshold. Any process lists both shards' events, each with the shard that logged
// it, filtered and limited as asked; a killed shard is reported unreachable while the other's
// events are still listed; the token is needed as for every list. A peer's answer is read as
// what it is: only events of the documented shape are listed, with their documented fields.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/recording_peer.hpp"
#include "support/run_command.hpp"
#include "support/shard_beside_peer.hpp"
#include "support/serve_api.hpp"
#include "support/shard_names.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;

const std::string kToken = "fleet-events-token-0123456789";

ApiAnswer get(int port, const std::string& target, const std::string& token = kToken) { return api_get(port, target, token); }

class FleetEvents : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        // A luma mean under 250 is "dark" for these entries, from the first picture measured.
        std::string yaml = "defaults: {output: 'null', filter: sobel, watch.dark.enter: 250, watch.dark.enter_hold_s: 0}\nstreams:\n";
        for (int k = 0; k < 2; ++k) {
            names[k] = name_in_shard("cam-", k, 2);
            yaml += "  - {name: " + names[k] + ", input: 'pattern://?size=96x64&rate=10&motion=checker'}\n";
        }
        std::ofstream(dir + "/streams.yaml") << yaml;
        for (int& p : ports) p = free_port();
        const std::string peers = "http://127.0.0.1:" + std::to_string(ports[0]) + ",http://127.0.0.1:" + std::to_string(ports[1]);
        for (int k = 0; k < 2; ++k) {
            pods[k] = std::make_unique<ChildProcess>(
                    std::vector<std::string>{VFILTER_BIN, "serve", "--config", dir + "/streams.yaml", "--shard", std::to_string(k) + "/2",
                                             "--api-port", std::to_string(ports[k]), "--api-token", kToken, "--peers", peers},
                    dir + "/serve-" + std::to_string(k) + ".log");
            ASSERT_TRUE(pods[k]->wait_for_log("control API: http://", 30)) << pods[k]->log();
        }
    }
    // Waits until `pred` holds for process k's GET target.
    nlohmann::json wait_for(int k, const std::string& target, const std::function<bool(const nlohmann::json&)>& pred, double timeout_s = 15) {
        nlohmann::json last;
        for (int i = 0; i < timeout_s * 10; ++i) {
            last = get(ports[k], target).body;
            if (last.is_object() && pred(last)) return last;
            std::this_thread::sleep_for(100ms);
        }
        ADD_FAILURE() << target << " on " << k << ": " << last.dump() << "\n" << pods[k]->log();
        return last;
    }
    std::string dir, names[2];
    int ports[2] = {};
    std::unique_ptr<ChildProcess> pods[2];
};

size_t events_of_shard(const nlohmann::json& list, int shard) {
    size_t n = 0;
    for (const auto& e : list["events"]) n += e["shard"] == shard;
    return n;
}

TEST_F(FleetEvents, AnyProcessListsEveryShardsEventsAndReportsAShardThatDoesNotAnswer) {
    for (int k = 0; k < 2; ++k) wait_for(k, "/events?kind=dark", [](const nlohmann::json& j) { return !j["events"].empty(); });
    // Both shards' events, from either process, each with its shard and its stream.
    for (int k = 0; k < 2; ++k) {
        const nlohmann::json f = wait_for(k, "/events?scope=fleet&kind=dark",
                                          [](const nlohmann::json& j) { return events_of_shard(j, 0) > 0 && events_of_shard(j, 1) > 0; });
        for (const auto& e : f["events"]) {
            const int shard = e["shard"].get<int>();
            ASSERT_TRUE(shard == 0 || shard == 1) << e.dump();
            EXPECT_EQ(e["stream"], names[shard]) << e.dump();
            EXPECT_EQ(e["kind"], "dark");
            EXPECT_EQ(e["change"], "entered");
        }
        for (size_t i = 1; i < f["events"].size(); ++i) EXPECT_LE(f["events"][i - 1]["time"], f["events"][i]["time"]) << "oldest first";
        EXPECT_EQ(f["unreachable"], nlohmann::json::array());
        ASSERT_EQ(f["shards"].size(), 2u);
        EXPECT_EQ(f["shards"][k]["self"], true);
        EXPECT_EQ(f["shards"][1 - k]["reachable"], true);
        EXPECT_GE(f["shards"][1 - k]["last_id"].get<int>(), 1);
    }
    // Filtered and limited as asked, across the shards.
    const nlohmann::json theirs = get(ports[0], "/events?scope=fleet&stream=" + names[1]).body;
    ASSERT_FALSE(theirs["events"].empty()) << theirs.dump();
    EXPECT_EQ(events_of_shard(theirs, 1), theirs["events"].size()) << theirs.dump();
    EXPECT_EQ(get(ports[0], "/events?scope=fleet&limit=1").body["events"].size(), 1u);
    EXPECT_EQ(get(ports[1], "/events?scope=fleet&kind=bright").body["events"], nlohmann::json::array());
    // The plain list stays this process's own, and the fleet's needs the token as well.
    EXPECT_EQ(get(ports[0], "/events").body["events"][0].contains("shard"), false);
    EXPECT_EQ(get(ports[0], "/events?scope=fleet", "").status, 401);
    EXPECT_EQ(get(ports[0], "/events?scope=fleet", "not-the-token-of-this-fleet").status, 401);
    EXPECT_EQ(get(ports[0], "/events?scope=fleet&after=1").status, 400) << "each shard numbers its own";
    // Shard 1 killed: shard 0 still answers, with its own events and shard 1 named unreachable.
    pods[1]->signal(SIGKILL);
    pods[1]->wait(10);
    const auto asked = std::chrono::steady_clock::now();
    const ApiAnswer lost = get(ports[0], "/events?scope=fleet");
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 5s) << "a peer is asked with a bounded time";
    ASSERT_EQ(lost.status, 200) << lost.body.dump();
    EXPECT_EQ(lost.body["unreachable"], nlohmann::json::array({1}));
    EXPECT_EQ(lost.body["shards"][1]["reachable"], false);
    EXPECT_GT(events_of_shard(lost.body, 0), 0u);
    EXPECT_EQ(events_of_shard(lost.body, 1), 0u);
}

// An address of --peers that answers as shard 1 with events a page could not show (a time no
// clock reaches, a stream name no stream has, a kind no watch logs) or with fields of its own:
// only the events of the documented shape are listed, and only their documented fields.
TEST(FleetEventsFromAPeer, OnlyEventsOfTheDocumentedShapeAreListed) {
    const auto event = [](uint64_t id, const nlohmann::json& time, const nlohmann::json& stream, const nlohmann::json& kind) {
        return nlohmann::json{{"id", id}, {"time", time}, {"since", 1795960000.0}, {"stream", stream}, {"kind", kind},
                              {"change", "entered"}, {"value", 12.5}};
    };
    nlohmann::json theirs = nlohmann::json::array({event(1, 1795960001.0, "gate", "dark"), event(2, 1e300, "gate", "dark"),
                                                   event(3, "1795960002", "gate", "dark"), event(4, 1795960003.0, "<img src=x>", "dark"),
                                                   event(5, 1795960004.0, "gate", "foggy"), event(6, -1e300, "gate", "dark"),
                                                   event(7, 1795960005.0, "gate", "covered")});
    theirs[6]["note"] = std::string(1000, 'x');
    RecordingPeer peer([&theirs](const HttpRequest& r) {
        if (r.path == "/fleet/shard")
            return HttpResponse{200, "application/json",
                                nlohmann::json{{"instance", "peer"}, {"pod", "peer"}, {"shard", {{"index", 1}, {"count", 2}}},
                                               {"streams", nlohmann::json::array()}}.dump()};
        if (r.path == "/events") return HttpResponse{200, "application/json", nlohmann::json{{"events", theirs}, {"last_id", 7}}.dump()};
        return HttpResponse{404, "application/json", "{}"};
    });
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: " << name_in_shard("cam-", 0, 2)
                                         << ", input: 'pattern://?size=96x64&rate=10', output: 'null'}\n";
    const int port = free_port();
    const std::unique_ptr<ChildProcess> serve = start_shard_beside_peer(dir, port, peer.port(), kToken);
    ASSERT_TRUE(serve->wait_for_log("control API: http://", 30)) << serve->log();
    nlohmann::json listed;
    for (int i = 0; i < 100; ++i, std::this_thread::sleep_for(100ms)) {
        listed = get(port, "/events?scope=fleet").body;
        if (listed.is_object() && listed["unreachable"] == nlohmann::json::array()) break;
    }
    ASSERT_EQ(listed["unreachable"], nlohmann::json::array()) << listed.dump() << serve->log();
    std::vector<uint64_t> ids;
    for (const auto& e : listed["events"])
        if (e["shard"] == 1) {
            ids.push_back(e["id"].get<uint64_t>());
            EXPECT_FALSE(e.contains("note")) << e.dump();
            EXPECT_EQ(e["stream"], "gate");
        }
    EXPECT_EQ(ids, (std::vector<uint64_t>{1, 7})) << listed.dump();
}

}  // namespace
}  // namespace vf
