// A fleet of `vfilter serve` processes (app/serve/fleet/fleet.hpp): three processes on loopback as shards 0..2
// of one camera list, each with --peers naming all three and the same token. Checked as an
// operator meets it: the fleet list from any process is the union of every shard's streams; a
// stream added, re-filtered and removed through a process that does not serve it is recorded,
// re-filtered and finalised by the one that does; a killed process is listed unreachable within
// seconds and listed again when it returns; the token is needed everywhere, forwarded calls
// included; a peer is sent a signature made with the token, never the token; a process never
// calls an address outside its list; peers found through DNS.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/http/api_guard.hpp"
#include "app/serve/serve_config.hpp"
#include "support/child_process.hpp"
#include "support/clip_writer.hpp"
#include "support/http_client.hpp"
#include "support/recording_check.hpp"
#include "support/recording_peer.hpp"
#include "support/run_command.hpp"
#include "support/serve_api.hpp"
#include "support/shard_names.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;

const std::string kToken = "fleet-token-0123456789";

ApiAnswer call(int port, const std::string& method, const std::string& target, const std::string& body = "",
               const std::string& token = kToken, const std::string& extra_headers = "") {
    return api_call(port, method, target, body, token, extra_headers);
}

std::set<std::string> names_of(const nlohmann::json& list) {
    std::set<std::string> names;
    for (const auto& s : list) names.insert(s["name"].get<std::string>());
    return names;
}

std::string name_in_shard(const std::string& prefix, int k) { return test::name_in_shard(prefix, k, 3); }

// The mean step between horizontal neighbours of a frame's luma: sharp pictures have more.
double texture(const AVFrame* f) {
    double sum = 0;
    for (int y = 0; y < f->height; ++y)
        for (int x = 1; x < f->width; ++x)
            sum += std::abs(f->data[0][y * f->linesize[0] + x] - f->data[0][y * f->linesize[0] + x - 1]);
    return sum / (f->height * (f->width - 1));
}

class FleetServe : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        std::string yaml = "defaults: {output: 'null', filter: sobel}\nstreams:\n";
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 2; ++j) {
                const std::string name = name_in_shard("cam" + std::to_string(j) + "-", k);
                yaml += "  - {name: " + name + ", input: 'pattern://?size=96x64&rate=25&motion=checker'}\n";
                file_names.insert(name);
            }
        std::ofstream(dir + "/streams.yaml") << yaml << "serve:\n  media-root: " << dir << "\n  recordings-root: " << dir << "\n";
        for (int& p : ports) p = free_port();
        for (int k = 0; k < 3; ++k) peers += (k ? "," : "") + std::string("http://127.0.0.1:") + std::to_string(ports[k]);
    }
    // `api_state`: the file this process keeps its API changes in, set as a StatefulSet sets it.
    std::unique_ptr<ChildProcess> start(int k, std::vector<std::string> extra = {}, const std::string& token = kToken,
                                        const std::string& api_state = "") {
        std::vector<std::string> args = {"env", "VFILTER_API_STATE=" + api_state, VFILTER_BIN, "serve", "--config",
                                         dir + "/streams.yaml", "--shard", std::to_string(k) + "/3",
                                         "--api-port", std::to_string(ports[k]), "--api-token", token};
        if (std::find(extra.begin(), extra.end(), "--peers") == extra.end()) extra.insert(extra.begin(), {"--peers", peers});
        args.insert(args.end(), extra.begin(), extra.end());
        auto p = std::make_unique<ChildProcess>(args, dir + "/serve-" + std::to_string(k) + "-" + std::to_string(++started) + ".log");
        EXPECT_TRUE(p->wait_for_log("control API: http://", 30)) << p->log();
        return p;
    }
    void start_all() {
        for (int k = 0; k < 3; ++k) pods[k] = start(k);
    }
    nlohmann::json fleet(int k) { return call(ports[k], "GET", "/streams?scope=fleet").body; }
    // Waits until process k's fleet list says `reachable` of shard `s`.
    bool wait_shard(int k, int s, bool reachable, double timeout_s) {  // timeout_s of the wall clock, however slow fleet() is
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < until) {
            const nlohmann::json f = fleet(k);
            if (f.is_object() && f["shards"][s]["reachable"] == reachable) return true;
            std::this_thread::sleep_for(100ms);
        }
        return false;
    }
    nlohmann::json owner_entry(int k, const std::string& name) {
        for (const auto& s : call(ports[k], "GET", "/streams").body)
            if (s["name"] == name) return s;
        return nullptr;
    }
    // A filter is changed only on a running stream (409 while it starts): under load a stream of
    // the file can still be starting when the test's first request comes.
    bool wait_running(int k, const std::string& name, double timeout_s = 30) {
        for (int i = 0; i < timeout_s * 20; ++i) {
            if (owner_entry(k, name)["state"] == "running") return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }
    std::string dir, peers;
    std::set<std::string> file_names;
    int ports[3] = {};
    int started = 0;
    std::unique_ptr<ChildProcess> pods[3];
};

TEST_F(FleetServe, TheFleetListFromAnyProcessIsTheUnionOfEveryShardsStreams) {
    start_all();
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(wait_shard(k, (k + 1) % 3, true, 10) && wait_shard(k, (k + 2) % 3, true, 10)) << pods[k]->log();
    std::set<std::string> union_of_shards;
    std::map<std::string, int> served_by;
    for (int k = 0; k < 3; ++k)
        for (const std::string& n : names_of(call(ports[k], "GET", "/streams").body)) union_of_shards.insert(n), served_by[n] = k;
    EXPECT_EQ(union_of_shards, file_names);
    for (int k = 0; k < 3; ++k) {
        const nlohmann::json f = fleet(k);
        ASSERT_TRUE(f.is_object()) << pods[k]->log();
        EXPECT_EQ(names_of(f["streams"]), union_of_shards) << f.dump(1);
        for (const auto& s : f["streams"]) {
            EXPECT_EQ(s["shard"], served_by[s["name"]]) << s.dump();
            EXPECT_EQ(s["reachable"], true);
            EXPECT_TRUE(s.contains("state") && s.contains("filter") && s.contains("pod")) << s.dump();
        }
        ASSERT_EQ(f["shards"].size(), 3u);
        for (int s = 0; s < 3; ++s) {
            EXPECT_EQ(f["shards"][s]["index"], s);
            EXPECT_EQ(f["shards"][s]["streams"], 2);
            EXPECT_EQ(f["shards"][s]["self"], s == k);
        }
        // The plain list stays this process's own.
        EXPECT_EQ(call(ports[k], "GET", "/streams").body.size(), 2u);
    }
    EXPECT_EQ(call(ports[0], "GET", "/streams?scope=world").status, 400);
}

TEST_F(FleetServe, ARecordingAddedRefilteredAndRemovedThroughAnotherProcessIsTheOwners) {
    start_all();
    for (int s : {1, 2}) ASSERT_TRUE(wait_shard(0, s, true, 10));
    ASSERT_TRUE(wait_shard(1, 2, true, 10));
    const std::string name = name_in_shard("door", 2);
    const std::string out = dir + "/" + name + ".mkv";
    const nlohmann::json entry = {{"name", name}, {"input", "pattern://?size=96x64&rate=25&motion=checker"}, {"output", out},
                                  {"codec", "ffv1"}, {"filter", "identity"}};
    const ApiAnswer added = call(ports[0], "POST", "/streams", entry.dump());
    ASSERT_EQ(added.status, 201) << added.body.dump();
    EXPECT_NE(added.head.find("X-Vfilter-Shard: 2"), std::string::npos) << added.head;
    EXPECT_TRUE(owner_entry(0, name).is_null()) << "process 0 runs a stream of shard 2";
    EXPECT_FALSE(owner_entry(2, name).is_null());
    ASSERT_TRUE(wait_running(2, name)) << pods[2]->log();
    std::this_thread::sleep_for(1000ms);  // frames before the change
    const ApiAnswer refiltered = call(ports[1], "PUT", "/streams/" + name + "/filter", "gaussian=sigma=3");
    ASSERT_EQ(refiltered.status, 200) << refiltered.body.dump();
    EXPECT_EQ(owner_entry(2, name)["filter"], "gaussian=sigma=3");
    EXPECT_EQ(call(ports[0], "GET", "/streams/" + name).body["filter"], "gaussian=sigma=3");
    std::this_thread::sleep_for(1500ms);
    const ApiAnswer removed = call(ports[0], "DELETE", "/streams/" + name);
    ASSERT_EQ(removed.status, 200) << removed.body.dump();
    EXPECT_GT(removed.body["frames_out"].get<int>(), 40);
    EXPECT_TRUE(owner_entry(2, name).is_null()) << "still running on its shard";
    EXPECT_EQ(call(ports[1], "GET", "/streams/" + name).status, 404);
    // The owner recorded it, finalised it, and changed its filter in the middle.
    const RecordingCheck rec = check_recording(out);
    EXPECT_TRUE(rec.clean) << rec.errors;
    const auto frames = read_video_frames(out);
    ASSERT_GT(frames.size(), 40u);
    EXPECT_GT(texture(frames.front().get()), 2 * texture(frames.back().get())) << "the recording's last frames are not blurred";
    // Refusals come back from the owner as they are.
    EXPECT_EQ(call(ports[0], "PUT", "/streams/" + *file_names.begin() + "/filter", "nosuchfilter").status, 400);
    EXPECT_EQ(call(ports[1], "DELETE", "/streams/" + name).status, 404);
}

TEST_F(FleetServe, AKilledProcessIsListedUnreachableWithItsStreamsAndAgainWhenItReturns) {
    start_all();
    for (int s : {1, 2}) ASSERT_TRUE(wait_shard(0, s, true, 10));
    ASSERT_TRUE(wait_shard(2, 1, true, 10));
    pods[1]->signal(SIGKILL);
    pods[1]->wait(10);
    const auto killed_at = std::chrono::steady_clock::now();
    // Each lists it at its next refresh (every 2 s) once the peer's 1.5 s timeout passed: about 3.5 s;
    // 8 for a loaded machine under a sanitizer. Never listed: the waits fail.
    for (int k : {0, 2}) EXPECT_TRUE(wait_shard(k, 1, false, 8)) << "shard 1 still listed as answering by " << k;
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
    EXPECT_LT(took, 8.0);
    const nlohmann::json f = fleet(0);
    EXPECT_EQ(names_of(f["streams"]), file_names) << "the unreachable shard's streams were dropped";
    int unreachable = 0;
    for (const auto& s : f["streams"])
        if (s["shard"] == 1) {
            EXPECT_EQ(s["reachable"], false);
            ++unreachable;
        }
    EXPECT_EQ(unreachable, 2);
    EXPECT_FALSE(f["shards"][1]["error"].get<std::string>().empty());
    // Its streams' requests fail with the reason, at once.
    const std::string theirs = name_in_shard("cam0-", 1);
    const ApiAnswer refused = call(ports[0], "PUT", "/streams/" + theirs + "/filter", "sobel");
    EXPECT_EQ(refused.status, 502) << refused.body.dump();
    EXPECT_NE(refused.body["error"].get<std::string>().find("shard 1/3"), std::string::npos);
    // Back: listed as answering again, its streams running.
    pods[1] = start(1);
    for (int k : {0, 2}) EXPECT_TRUE(wait_shard(k, 1, true, 10));
    for (int i = 0; i < 100; ++i) {
        bool running = true;
        const nlohmann::json listed = fleet(2);  // held: a loop over a temporary's member would read freed memory
        for (const auto& s : listed["streams"]) running = running && s["state"] == "running" && s["reachable"] == true;
        if (running) break;
        std::this_thread::sleep_for(100ms);
        if (i == 99) ADD_FAILURE() << fleet(2).dump(1);
    }
}

TEST_F(FleetServe, TheTokenIsNeededOnEveryProcessAndOnForwardedCalls) {
    pods[0] = start(0);
    pods[1] = start(1);
    pods[2] = start(2, {}, "another-token-0123456789");  // a process whose token differs
    ASSERT_TRUE(wait_shard(0, 1, true, 10));
    for (int k = 0; k < 3; ++k) {
        for (const char* target : {"/streams?scope=fleet", "/streams", "/fleet/shard", "/live?streams=x"})
            EXPECT_EQ(call(ports[k], "GET", target, "", "").status, 401) << k << " " << target;
        EXPECT_EQ(call(ports[k], "POST", "/streams", "{\"name\":\"x\"}", "wrong").status, 401) << k;
        // Saying it was forwarded does not stand in for the token.
        EXPECT_EQ(call(ports[k], "DELETE", "/streams/" + *file_names.begin(), "", "", "X-Vfilter-Forwarded-By: vfilter-0\r\n").status, 401);
    }
    // Process 0's calls carry its token, which process 2 refuses: its shard is listed as not
    // answering, with the reason, and requests for its streams are not passed on.
    // (Listed as not answering before process 2 listened, too: wait for the refusal's reason.)
    nlohmann::json f;
    for (int i = 0; i < 100; ++i, std::this_thread::sleep_for(100ms)) {
        f = fleet(0);
        if (f.is_object() && f["shards"][2].value("error", std::string()).find("401") != std::string::npos) break;
    }
    EXPECT_EQ(f["shards"][2]["reachable"], false) << f["shards"][2].dump();
    EXPECT_NE(f["shards"][2]["error"].get<std::string>().find("401"), std::string::npos) << f["shards"][2].dump();
    const std::string theirs = name_in_shard("cam0-", 2);
    EXPECT_EQ(call(ports[0], "PUT", "/streams/" + theirs + "/filter", "gaussian").status, 503);
    EXPECT_EQ(call(ports[2], "GET", "/streams/" + theirs, "", "another-token-0123456789").body["filter"], "sobel");
}

// An address of --peers that is no shard of this fleet (a reused IP, a stale DNS entry) is sent a
// signature it can check only with the token, and never the token: not on the fleet's refresh, a
// forwarded write, nor a relayed /live.
TEST_F(FleetServe, APeerIsSentASignatureAndNeverTheToken) {
    const std::string theirs = name_in_shard("cam0-", 2);
    const ApiGuard guard(ApiGuardOptions{kToken, "", "127.0.0.1", {}});
    std::mutex mutex;
    std::set<std::string> signed_paths, unsigned_paths;
    RecordingPeer fake([&](const HttpRequest& r) {
        const bool valid = guard.role(r, PeerNonce::Spend) == ApiRole::Admin;
        {
            std::lock_guard<std::mutex> lock(mutex);
            (valid ? signed_paths : unsigned_paths).insert(r.path);
        }
        if (!valid) return HttpResponse{401, "application/json", "{}"};
        if (r.path != "/fleet/shard") return HttpResponse{r.path == "/live" ? 404 : 200, "application/json", "{}"};
        const nlohmann::json streams = nlohmann::json::array({{{"name", theirs}, {"state", "running"}, {"filter", "sobel"}}});
        return HttpResponse{200, "application/json",
                            nlohmann::json{{"instance", "fake"}, {"pod", "fake"}, {"shard", {{"index", 2}, {"count", 3}}}, {"streams", streams}}.dump()};
    });
    pods[0] = start(0, {"--peers", "http://127.0.0.1:" + std::to_string(ports[0]) + ",http://127.0.0.1:" + std::to_string(fake.port())});
    ASSERT_TRUE(wait_shard(0, 2, true, 10)) << pods[0]->log();
    EXPECT_EQ(call(ports[0], "PUT", "/streams/" + theirs + "/filter", "gaussian").status, 200);
    HttpConnection page(ports[0], "GET /live?streams=" + theirs + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kToken + "\r\n\r\n");
    for (int i = 0; i < 50; ++i, std::this_thread::sleep_for(100ms)) {
        std::lock_guard<std::mutex> lock(mutex);
        if (signed_paths.count("/live")) break;
    }
    page.close_now();
    {
        std::lock_guard<std::mutex> lock(mutex);
        EXPECT_EQ(signed_paths, (std::set<std::string>{"/fleet/shard", "/streams/" + theirs + "/filter", "/live"}));
        EXPECT_TRUE(unsigned_paths.empty()) << *unsigned_paths.begin();
    }
    const std::vector<std::string> sent = fake.requests();
    EXPECT_GE(sent.size(), 3u);
    for (const std::string& request : sent) {
        EXPECT_EQ(request.find(kToken), std::string::npos) << request;
        EXPECT_EQ(request.find("Bearer"), std::string::npos) << request;
        EXPECT_NE(request.find("\r\nAuthorization: VfilterPeer ts="), std::string::npos) << request;
        EXPECT_NE(request.find("\r\nX-Vfilter-Forwarded-By: "), std::string::npos) << request;
    }
}

TEST_F(FleetServe, AProcessCallsOnlyTheAddressesOfItsListAndFindsPeersThroughDns) {
    // Process 0 lists only process 1 (by a name DNS resolves); process 2 runs but is not listed.
    pods[1] = start(1);
    pods[2] = start(2);
    pods[0] = start(0, {"--peers", "dns:localhost:" + std::to_string(ports[1])});
    ASSERT_TRUE(wait_shard(0, 1, true, 10)) << pods[0]->log();
    std::this_thread::sleep_for(2500ms);  // a refresh or two
    const nlohmann::json f = fleet(0);
    EXPECT_EQ(f["shards"][1]["address"], "http://127.0.0.1:" + std::to_string(ports[1]));
    EXPECT_EQ(f["shards"][2]["reachable"], false);
    // Never heard from: listed with the streams the camera list gives it.
    int expected = 0;
    for (const auto& s : f["streams"])
        if (s["shard"] == 2) {
            EXPECT_EQ(s["state"], "unknown");
            ++expected;
        }
    EXPECT_EQ(expected, 2);
    const std::string theirs = name_in_shard("cam0-", 2);
    const ApiAnswer refused = call(ports[0], "PUT", "/streams/" + theirs + "/filter", "gaussian");
    EXPECT_EQ(refused.status, 503) << refused.body.dump();
    EXPECT_EQ(owner_entry(2, theirs)["filter"], "sobel") << "process 0 reached a process outside its list";
}

TEST_F(FleetServe, StreamsAddedThroughTheApiComeBackAfterARestart) {
    for (int k = 0; k < 3; ++k) pods[k] = start(k, {}, kToken, dir + "/state-" + std::to_string(k) + ".json");
    for (int s : {1, 2}) ASSERT_TRUE(wait_shard(0, s, true, 10));
    const std::string name = name_in_shard("porch", 1);
    const nlohmann::json entry = {{"name", name}, {"input", "pattern://?size=96x64&rate=25"}, {"output", "null"}};
    ASSERT_EQ(call(ports[0], "POST", "/streams", entry.dump()).status, 201);
    const std::string refiltered = name_in_shard("cam0-", 1), removed = name_in_shard("cam1-", 1);
    ASSERT_TRUE(wait_running(1, refiltered)) << pods[1]->log();
    ASSERT_EQ(call(ports[2], "PUT", "/streams/" + refiltered + "/filter", "gaussian=sigma=2").status, 200);
    ASSERT_EQ(call(ports[2], "DELETE", "/streams/" + removed).status, 200);
    pods[1]->signal(SIGTERM);
    ASSERT_EQ(pods[1]->wait(30), 0);
    pods[1] = start(1, {}, kToken, dir + "/state-1.json");
    EXPECT_FALSE(owner_entry(1, name).is_null()) << "the stream added through the API did not come back";
    EXPECT_EQ(owner_entry(1, refiltered)["filter"], "gaussian=sigma=2");
    EXPECT_TRUE(owner_entry(1, removed).is_null()) << "a stream removed through the API came back";
    // The file's entry edited: the file wins again for that stream.
    std::string yaml = read_file(dir + "/streams.yaml");
    const size_t at = yaml.find("{name: " + refiltered + ",");
    yaml.insert(yaml.find('}', at), ", filter: 'gaussian=sigma=1'");
    std::ofstream(dir + "/streams.yaml") << yaml;
    pods[1]->signal(SIGHUP);
    for (int i = 0; i < 100 && owner_entry(1, refiltered)["filter"] != "gaussian=sigma=1"; ++i) std::this_thread::sleep_for(100ms);
    EXPECT_EQ(owner_entry(1, refiltered)["filter"], "gaussian=sigma=1");
    EXPECT_FALSE(owner_entry(1, name).is_null()) << "applying the file stopped the stream added through the API";
}

TEST_F(FleetServe, AStreamAddedThroughTheApiMovesToItsNewShardWhenTheCountChanges) {
    // Two processes, then three: a stream of shard 1 of 2 that shard 2 of 3 takes.
    std::string name;
    for (int i = 0; name.empty(); ++i)
        if (shard_of("porch" + std::to_string(i), 2) == 1 && shard_of("porch" + std::to_string(i), 3) == 2) name = "porch" + std::to_string(i);
    const auto state = [this](int k) { return dir + "/state-" + std::to_string(k) + ".json"; };
    const std::string two = "http://127.0.0.1:" + std::to_string(ports[0]) + ",http://127.0.0.1:" + std::to_string(ports[1]);
    for (int k = 0; k < 2; ++k) {
        std::vector<std::string> args = {"env", "VFILTER_API_STATE=" + state(k), VFILTER_BIN, "serve", "--config", dir + "/streams.yaml",
                                         "--shard", std::to_string(k) + "/2", "--api-port", std::to_string(ports[k]), "--api-token",
                                         kToken, "--peers", two};
        pods[k] = std::make_unique<ChildProcess>(args, dir + "/two-" + std::to_string(k) + ".log");
        ASSERT_TRUE(pods[k]->wait_for_log("control API: http://", 30));
    }
    ASSERT_TRUE(wait_shard(0, 1, true, 10));
    const nlohmann::json entry = {{"name", name}, {"input", "pattern://?size=96x64&rate=25"}, {"output", "null"}};
    ASSERT_EQ(call(ports[0], "POST", "/streams", entry.dump()).status, 201);
    EXPECT_NE(read_file(state(1)).find(name), std::string::npos);
    for (int k = 0; k < 2; ++k) {
        pods[k]->signal(SIGTERM);
        ASSERT_EQ(pods[k]->wait(30), 0);
    }
    for (int k = 0; k < 3; ++k) pods[k] = start(k, {}, kToken, state(k));
    nlohmann::json moved;
    for (int i = 0; i < 150 && moved.is_null(); ++i) {
        moved = owner_entry(2, name);
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_FALSE(moved.is_null()) << "not handed over to shard 2/3:\n" << pods[1]->log();
    EXPECT_TRUE(owner_entry(1, name).is_null());
    EXPECT_EQ(read_file(state(1)).find(name), std::string::npos) << "still kept by the old shard";
    EXPECT_NE(read_file(state(2)).find(name), std::string::npos) << "not kept by the new shard";
}

// A peer whose recordings list has a field of another type than the documented one (a number of
// bytes as text, "clip" as a word): that entry is left out, and the list is still answered with
// every other shard's files.
TEST(FleetRecordingsFromAPeer, AnEntryOfAnotherShapeIsLeftOutAndTheListAnswered) {
    const nlohmann::json theirs = nlohmann::json::array({{{"file", "clips/cam/20261129T134500Z-dark.mp4"}, {"bytes", 10}, {"modified", 5}, {"clip", true}},
                                                         {{"file", "a.mp4"}, {"bytes", "many"}, {"modified", 4}},
                                                         {{"file", "b.mp4"}, {"bytes", 1}, {"modified", 3}, {"clip", "yes"}},
                                                         {{"file", "c.mp4"}, {"bytes", 1}, {"modified", "today"}}});
    RecordingPeer peer([&theirs](const HttpRequest& r) {
        if (r.path == "/fleet/shard")
            return HttpResponse{200, "application/json",
                                nlohmann::json{{"instance", "peer"}, {"pod", "peer"}, {"shard", {{"index", 1}, {"count", 2}}},
                                               {"streams", nlohmann::json::array()}}.dump()};
        if (r.path == "/streams/cam/recordings")
            return HttpResponse{200, "application/json", nlohmann::json{{"stream", "cam"}, {"recordings", theirs}}.dump()};
        return HttpResponse{404, "application/json", "{}"};
    });
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: cam, input: 'pattern://?size=96x64&rate=10', output: 'null'}\n";
    const int port = free_port();
    ChildProcess serve({VFILTER_BIN, "serve", "--config", dir + "/streams.yaml", "--shard", "0/2", "--api-port", std::to_string(port),
                        "--api-token", kToken, "--peers", "http://127.0.0.1:" + std::to_string(peer.port())},
                       dir + "/serve.log");
    ASSERT_TRUE(serve.wait_for_log("control API: http://", 30)) << serve.log();
    ApiAnswer listed;
    for (int i = 0; i < 100; ++i, std::this_thread::sleep_for(100ms)) {
        listed = call(port, "GET", "/streams/cam/recordings?scope=fleet");
        if (listed.status != 200 || listed.body["unreachable"].empty()) break;
    }
    ASSERT_EQ(listed.status, 200) << listed.head << serve.log();
    EXPECT_EQ(listed.body["unreachable"], nlohmann::json::array());
    ASSERT_EQ(listed.body["recordings"].size(), 1u) << listed.body.dump();
    EXPECT_EQ(listed.body["recordings"][0]["file"], "clips/cam/20261129T134500Z-dark.mp4");
    EXPECT_EQ(listed.body["recordings"][0]["clip"], true);
    EXPECT_EQ(listed.body["recordings"][0]["shards"], nlohmann::json::array({1}));
}

}  // namespace
}  // namespace vf
