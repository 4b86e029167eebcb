// `vfilter serve` run as a user runs it: streams from files in one process, the control API
// adding, removing and re-filtering streams while others run, the token, and the outputs
// finalised on SIGTERM. The config file: serve_config_test.cpp; reloads and shards:
// serve_reload_test.cpp; previews and live video: serve_live_video_test.cpp; the RTSP cameras:
// tests/live/live_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/serve_command.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "cli/serve_fixture.hpp"
#include "common/error.hpp"
#include "support/jpeg_decode.hpp"

namespace vf {
namespace {

using namespace serve_fixture;
namespace fs = std::filesystem;

TEST_F(Serve, RunsEveryStreamAndFinalisesThemOnSigterm) {
    clip("a.mkv", 200, 1);
    clip("b.mkv", 200, 2);
    settings["stats-json"] = dir + "/stats.json";
    write("streams.yaml", "defaults: {codec: ffv1, realtime: true, on-overload: block}\nstreams:\n"
                          "  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, filter: sobel}\n"
                          "  - {name: b, input: " + dir + "/b.mkv, output: " + dir + "/b-out.mkv, filter: 'gaussian=sigma=1.5'}\n");
    auto p = serve({});
    ASSERT_TRUE(p->wait_for_log("[a] output:", 30)) << p->log();
    ASSERT_TRUE(p->wait_for_log("[b] output:", 30)) << p->log();
    std::this_thread::sleep_for(1s);
    p->signal(SIGTERM);
    ASSERT_EQ(p->wait(30), 0) << p->log();
    const nlohmann::json stats = nlohmann::json::parse(read_file(dir + "/stats.json"));
    for (const char* name : {"a", "b"}) {
        ASSERT_TRUE(stats.contains(name)) << stats.dump(2);
        EXPECT_EQ(stats[name]["state"], "stopped");
        const int64_t written = stats[name]["frames_out"].get<int64_t>();
        EXPECT_GT(written, 10);
        EXPECT_LT(written, 200) << "stopped early by the signal";
        EXPECT_EQ(static_cast<int64_t>(read_video_frames(dir + "/" + name + "-out.mkv").size()), written)
            << "the output holds every frame the stream reported";
    }
}

TEST_F(Serve, StreamsThatEndEndTheServiceWithoutAnApi) {
    clip("a.mkv", 20, 1);
    settings["stats-json"] = dir + "/stats.json";
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, codec: ffv1}\n"
                          "  - {name: gone, input: " + dir + "/missing.mkv, output: " + dir + "/gone.mkv}\n");
    auto p = serve({});
    EXPECT_EQ(p->wait(60), 5) << "one stream failed: " << p->log();
    const nlohmann::json stats = nlohmann::json::parse(read_file(dir + "/stats.json"));
    EXPECT_EQ(stats["a"]["state"], "stopped");
    EXPECT_EQ(stats["a"]["frames_out"], 20) << "the failing stream did not harm the other";
    EXPECT_EQ(stats["gone"]["state"], "failed");
    EXPECT_NE(stats["gone"]["last_error"].get<std::string>().find("missing.mkv"), std::string::npos) << stats.dump(2);
    EXPECT_FALSE(file_exists(dir + "/gone.mkv"));
    EXPECT_EQ(read_video_frames(dir + "/a-out.mkv").size(), 20u);
}

TEST_F(Serve, BadConfigIsRefusedBeforeAnythingStarts) {
    clip("a.mkv", 20, 1);
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv}\n"
                          "  - {name: b, input: " + dir + "/a.mkv, output: " + dir + "/b-out.mkv, filter: 'sobel=scale=x'}\n");
    auto p = serve({});
    EXPECT_EQ(p->wait(30), 2) << p->log();
    EXPECT_NE(p->log().find("streams.yaml:3:5: stream 'b': field 'filter'"), std::string::npos) << p->log();
    EXPECT_FALSE(file_exists(dir + "/a-out.mkv")) << "no stream starts when one is bad";
    write("streams.yaml", "streams:\n  - name: a\n    input: [unclosed\n");
    auto q = serve({}, "q.log");
    EXPECT_EQ(q->wait(30), 2) << q->log();
    EXPECT_NE(q->log().find("streams.yaml:"), std::string::npos) << q->log();
    // The token may come from the file's serve: block (api-token-file): a good file, and none there.
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv}\n");
    auto r = run_vfilter({"serve", "--config", dir + "/streams.yaml", "--api-port", "0", "--api-bind", "0.0.0.0"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("give it a token"), std::string::npos) << r.output;
}

TEST_F(Serve, ApiAddsAndRemovesStreamsWhileOthersRunAndRefusesBadRequests) {
    clip("a.mkv", 600, 1);
    clip("b.mkv", 600, 2);
    settings["stats-json"] = dir + "/stats.json";
    write("streams.yaml", "defaults: {codec: ffv1, realtime: true, on-overload: block}\nstreams:\n"
                          "  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, filter: sobel}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();

    const std::string b = R"({"name": "b", "input": ")" + dir + R"(/b.mkv", "output": ")" + dir + R"(/b-out.mkv", "filter": "prewitt"})";
    std::string r = api_request(port, "POST", "/streams", b);
    EXPECT_EQ(status_of(r), 201) << r;
    EXPECT_EQ(body_json(r)["name"], "b");
    EXPECT_EQ(status_of(api_request(port, "POST", "/streams", b)), 409) << "a duplicate name";
    r = api_request(port, "POST", "/streams", R"({"name": "c", "input": "b.mkv", "output": "c.mkv", "colour": "red"})");
    EXPECT_EQ(status_of(r), 400);
    EXPECT_NE(body_json(r)["error"].get<std::string>().find("unknown field 'colour'"), std::string::npos) << r;
    r = api_request(port, "POST", "/streams", R"({"name": "c", "input": "b.mkv", "output": "c.mkv", "filter": "blurry"})");
    EXPECT_EQ(status_of(r), 400);
    EXPECT_NE(body_json(r)["error"].get<std::string>().find("unknown filter 'blurry'"), std::string::npos) << r;
    r = api_request(port, "POST", "/streams", R"({"name": "c", "input": ")" + dir + R"(/b.mkv", "output": ")" + dir + R"(/a-out.mkv"})");
    EXPECT_EQ(status_of(r), 409) << "another stream's output: " << r;
    EXPECT_EQ(status_of(api_request(port, "POST", "/streams", "{nope")), 400);
    EXPECT_EQ(status_of(api_request(port, "PUT", "/streams/a/filter", "blurry")), 400);
    EXPECT_EQ(status_of(api_request(port, "PUT", "/streams/zz/filter", "sobel")), 404);
    EXPECT_EQ(status_of(api_request(port, "DELETE", "/streams/zz")), 404);
    EXPECT_EQ(status_of(api_request(port, "GET", "/nothing")), 404);
    EXPECT_EQ(streams(port).size(), 2u) << "the bad requests changed nothing";

    ASSERT_TRUE(wait_state(port, "b", "running")) << p->log();
    std::this_thread::sleep_for(1s);
    r = api_request(port, "DELETE", "/streams/b");
    EXPECT_EQ(status_of(r), 200) << r;
    const int64_t b_written = body_json(r)["frames_out"].get<int64_t>();
    EXPECT_EQ(body_json(r)["state"], "stopped") << r;
    EXPECT_EQ(body_json(r)["stats"]["frames_out"], b_written) << "the answer carries the stream's final stats: " << r;
    const auto b_frames = read_video_frames(dir + "/b-out.mkv");
    EXPECT_GT(b_frames.size(), 5u) << "removed: its output is finalised when DELETE answers";
    EXPECT_EQ(static_cast<int64_t>(b_frames.size()), b_written);
    EXPECT_EQ(streams(port).size(), 1u);
    const nlohmann::json a = stream(port, "a");
    EXPECT_EQ(a["state"], "running") << "the other stream kept running: " << a.dump();
    EXPECT_EQ(a["frames_dropped"], 0);

    const std::string metrics = api_request(port, "GET", "/metrics");
    EXPECT_NE(metrics.find("vfilter_frames_out_total{stream=\"a\"}"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("vfilter_streams{state=\"running\"} 1"), std::string::npos) << metrics;
    EXPECT_EQ(metrics.find("stream=\"b\""), std::string::npos) << "a removed stream leaves the metrics";
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    EXPECT_NE(metrics.find("vfilter_heap_bytes{state=\"in_use\"} "), std::string::npos) << "malloc's heap (glibc): " << metrics;
#endif
    EXPECT_EQ(status_of(api_request(port, "GET", "/healthz")), 200);
    EXPECT_EQ(status_of(api_request(port, "GET", "/readyz")), 200);

    p->signal(SIGINT);
    ASSERT_EQ(p->wait(30), 0) << p->log();
    EXPECT_FALSE(read_video_frames(dir + "/a-out.mkv").empty());
    const nlohmann::json stats = nlohmann::json::parse(read_file(dir + "/stats.json"));
    ASSERT_TRUE(stats.contains("b")) << "a removed stream keeps its entry: " << stats.dump(2);
    EXPECT_EQ(stats["b"]["frames_out"], b_written);
}

TEST_F(Serve, TokenGuardsTheStreamsButNotTheProbes) {
    clip("a.mkv", 600, 1);
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: 'null', realtime: true}\n");
    auto p = serve({"--api-port", "0", "--api-token", "t0k3n-0123456789ab"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams")), 401);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams", "", "wrong")), 401);
    EXPECT_EQ(status_of(api_request(port, "DELETE", "/streams/a", "", "wrong")), 401);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams", "", "t0k3n-0123456789ab")), 200);
    EXPECT_EQ(status_of(api_request(port, "GET", "/metrics")), 200);
    EXPECT_EQ(status_of(api_request(port, "GET", "/healthz")), 200);
    EXPECT_EQ(streams(port, "t0k3n-0123456789ab").size(), 1u) << "the refused DELETE changed nothing";
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

// The filter changed through the API applies from one frame on: on lossless output every frame
// before it equals the old filter's output, every frame from it the new one's, exactly.
TEST_F(Serve, FilterChangeAppliesFromTheNextFrameWithoutRestartingTheOutput) {
    const std::string in = clip("a.mkv", 150, 7);
    for (const auto& [name, filter] : std::vector<std::pair<std::string, std::string>>{{"old", "sobel"}, {"new", "gaussian=sigma=2"}}) {
        const CommandResult r = run_vfilter({"-i", in, "-f", filter, "--codec", "ffv1", "-o", dir + "/" + name + ".mkv", "--no-progress"});
        ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    write("streams.yaml", "streams:\n  - {name: a, input: " + in + ", output: " + dir + "/live.mkv, filter: sobel, codec: ffv1, "
                          "realtime: true, on-overload: block}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    std::this_thread::sleep_for(1500ms);
    const std::string r = api_request(port, "PUT", "/streams/a/filter", "gaussian=sigma=2");
    ASSERT_EQ(status_of(r), 200) << r;
    EXPECT_EQ(body_json(r)["filter"], "gaussian=sigma=2");
    ASSERT_TRUE(wait_state(port, "a", "stopped", 30)) << p->log();
    p->signal(SIGTERM);
    ASSERT_EQ(p->wait(30), 0) << p->log();

    const auto old_frames = read_video_frames(dir + "/old.mkv"), new_frames = read_video_frames(dir + "/new.mkv");
    const auto live = read_video_frames(dir + "/live.mkv");
    ASSERT_EQ(live.size(), 150u);
    ASSERT_EQ(old_frames.size(), 150u);
    ASSERT_EQ(new_frames.size(), 150u);
    size_t change = 0;
    while (change < live.size() && same_pixels(live[change].get(), old_frames[change].get())) ++change;
    EXPECT_GT(change, 10u) << "the old filter ran first";
    EXPECT_LT(change, 140u) << "the new filter ran after the change";
    for (size_t i = change; i < live.size(); ++i)
        ASSERT_TRUE(same_pixels(live[i].get(), new_frames[i].get())) << "frame " << i << " of " << live.size() << ", change at " << change;
}

}  // namespace
}  // namespace vf
