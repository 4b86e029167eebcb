// `vfilter serve`: the YAML config and the API's JSON entries (errors name the line, the stream
// and the field), and the command itself run as a user runs it: streams from files in one
// process, the control API adding, removing and re-filtering streams while others run, the token,
// SIGHUP, and the outputs finalised on SIGTERM. The RTSP cameras are in tests/live/live_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <regex>
#include <set>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/serve_command.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "common/error.hpp"
#include "support/child_process.hpp"
#include "support/clip_writer.hpp"
#include "support/http_client.hpp"
#include "support/jpeg_decode.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string usage_error(const std::string& yaml) {
    try {
        parse_serve_config(yaml, "streams.yaml");
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "(accepted)";
}

TEST(ServeConfig, ReadsDefaultsAndStreams) {
    const ServeConfig c = parse_serve_config(R"(
defaults:
  filter: sobel
  crf: 30
  on-overload: block
streams:
  - name: cam1
    input: a.mp4
    output: a-out.mp4
  - name: cam_2-b
    input: b.mp4
    output: "null"
    filter: gaussian=sigma=2
    low-latency: true
    realtime: false
)", "streams.yaml");
    ASSERT_EQ(c.streams.size(), 2u);
    EXPECT_EQ(c.streams[0].name, "cam1");
    EXPECT_EQ(c.streams[0].options.filter.chain.text(), "sobel");
    EXPECT_EQ(c.streams[0].options.output.crf.value_or(-1), 30);
    EXPECT_EQ(c.streams[0].options.pipeline.on_overload, OverloadPolicy::Block);
    EXPECT_EQ(c.streams[1].options.filter.chain.text(), "gaussian=sigma=2") << "the stream's own field wins over the default";
    EXPECT_TRUE(c.streams[1].options.pipeline.low_latency);
    EXPECT_EQ(preset_of(c.streams[1].options.output, c.streams[1].options.pipeline.low_latency), "superfast")
        << "as on the command line: low latency picks a faster preset";
    EXPECT_FALSE(c.streams[1].options.input.realtime);
    EXPECT_EQ(c.streams[1].options.output.path, "null");
}

TEST(ServeConfig, ErrorsNameTheLineTheStreamAndTheField) {
    EXPECT_NE(usage_error("streams:\n  - name: a\n    input: [x\n").find("streams.yaml:"), std::string::npos);
    const std::string unknown = usage_error("streams:\n  - name: cam1\n    input: a.mp4\n    output: b.mp4\n    colour: red\n");
    EXPECT_NE(unknown.find("streams.yaml:2:5"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("stream 'cam1'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("unknown field 'colour'"), std::string::npos) << unknown;
    const std::string bad_value = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, crf: 99}\n");
    EXPECT_NE(bad_value.find("stream 'cam1'"), std::string::npos) << bad_value;
    EXPECT_NE(bad_value.find("crf"), std::string::npos) << bad_value;
    const std::string filter = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, filter: blurry}\n");
    EXPECT_NE(filter.find("stream 'cam1': field 'filter': unknown filter 'blurry'"), std::string::npos) << filter;
    const std::string codec = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, codec: nosuch}\n");
    EXPECT_NE(codec.find("stream 'cam1': field 'codec'"), std::string::npos) << codec;
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y}\n  - {name: a, input: x, output: z}\n").find("'a' is used twice"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: 'a b', input: x, output: y}\n").find("stream name 'a b'"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x}\n").find("field 'output' is missing"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {input: x, output: y}\n").find("field 'name' is missing"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, metrics-port: 9000}\n").find("whole serve process"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, min-free: 5%}\n").find("whole serve process"),
              std::string::npos);
    EXPECT_NE(usage_error("defaults: {retain: 7d}\nstreams:\n  - {name: a, input: x, output: y.mp4}\n").find("add --segment"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y.mp4, segment: 60, retain-size: lots}\n")
                  .find("field 'retain-size': 'lots': expected a size"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, wait-for-input: maybe}\n").find("expected true or false"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: [x, y], output: y}\n").find("expected a single value"), std::string::npos);
    EXPECT_NE(usage_error("stream:\n  - {name: a}\n").find("unknown section 'stream'"), std::string::npos);
    EXPECT_NE(usage_error("defaults: {filter: sobel}\n").find("'streams:' must be a list"), std::string::npos);
    EXPECT_NE(usage_error("{[a]: 1}\n").find("streams.yaml"), std::string::npos);
}

TEST(ServeConfig, EnvironmentVariablesFillValues) {
    ::setenv("VF_TEST_CAM_URL", "rtsp://admin:s3cret@10.0.0.5/live", 1);
    const ServeConfig c = parse_serve_config("streams:\n  - {name: a, input: '${VF_TEST_CAM_URL}', output: a.mp4}\n", "s.yaml");
    EXPECT_EQ(c.streams[0].options.input.url, "rtsp://admin:s3cret@10.0.0.5/live");
    ::unsetenv("VF_TEST_CAM_URL");
    const std::string e = usage_error("streams:\n  - {name: a, input: '${VF_TEST_CAM_URL}', output: a.mp4}\n");
    EXPECT_NE(e.find("environment variable VF_TEST_CAM_URL is not set"), std::string::npos) << e;
}

// VFILTER_DEVICE (a Kubernetes overlay's choice) is every stream's default; a stream's own field wins.
TEST(ServeConfig, DeviceFromTheEnvironmentIsTheDefault) {
    ::setenv("VFILTER_DEVICE", "cpu", 1);
    const ServeConfig c = parse_serve_config("streams:\n  - {name: a, input: x.mp4, output: a.mp4}\n"
                                             "  - {name: b, input: x.mp4, output: b.mp4, device: cuda}\n", "s.yaml");
    ::unsetenv("VFILTER_DEVICE");
    EXPECT_EQ(c.streams[0].options.filter.device, DeviceChoice::Cpu);
    EXPECT_EQ(c.streams[1].options.filter.device, DeviceChoice::Cuda);
    const ServeConfig unset = parse_serve_config("streams:\n  - {name: a, input: x.mp4, output: a.mp4}\n", "s.yaml");
    EXPECT_EQ(unset.streams[0].options.filter.device, DeviceChoice::Auto);
}

TEST(ServeConfig, ApiEntriesAreReadLikeTheFile) {
    const StreamFields defaults = {{"filter", "sobel"}, {"codec", "ffv1"}};
    const std::string root = temp_dir();
    std::ofstream(root + "/x.mp4") << "x";
    ClientAccess files;
    files.media_root = files.recordings_root = root;
    const StreamConfig s = stream_from_json(R"({"name": "cam9", "input": "x.mp4", "output": "y.mkv", "crf": 20, "realtime": true})",
                                            defaults, checked_client_access(files));
    EXPECT_EQ(s.options.input.url, fs::canonical(root).string() + "/x.mp4") << "a client's name is resolved under its root";
    EXPECT_EQ(s.name, "cam9");
    EXPECT_EQ(s.options.filter.chain.text(), "sobel");
    EXPECT_TRUE(s.options.input.realtime);
    EXPECT_EQ(s.options.output.crf.value_or(-1), 20);
    EXPECT_THROW(stream_from_json("{not json", defaults), Error);
    EXPECT_THROW(stream_from_json(R"({"input": "x", "output": "y"})", defaults), Error);
    EXPECT_THROW(stream_from_json(R"({"name": "a", "input": "x", "output": "y", "filter": ["sobel"]})", defaults), Error);
    ::setenv("VF_TEST_SECRET", "hidden", 1);
    const StreamConfig literal = stream_from_json(R"({"name": "a", "input": "http://h/${VF_TEST_SECRET}", "output": "null"})", defaults);
    EXPECT_EQ(literal.options.input.url, "http://h/${VF_TEST_SECRET}") << "a client must not read the server's environment";
    ::unsetenv("VF_TEST_SECRET");
}

TEST(ServeConfig, LoopbackAddresses) {
    EXPECT_TRUE(is_loopback_address("127.0.0.1"));
    EXPECT_TRUE(is_loopback_address("127.8.9.10"));
    EXPECT_FALSE(is_loopback_address("0.0.0.0"));
    EXPECT_FALSE(is_loopback_address("10.0.0.1"));
    EXPECT_FALSE(is_loopback_address("localhost"));
}

// HTTP with a body and a method, for the API.
std::string http(int port, const std::string& method, const std::string& path, const std::string& body = "",
                 const std::string& token = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
    if (method == "POST" || method == "PUT") req += "Content-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return http_exchange(port, req);
}
int status_of(const std::string& response) {
    return response.size() > 12 && response.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(response.c_str() + 9) : -1;
}
nlohmann::json body_json(const std::string& response) {
    const size_t at = response.find("\r\n\r\n");
    if (at == std::string::npos) return nullptr;
    return nlohmann::json::parse(response.substr(at + 4), nullptr, false);
}

bool same_pixels(const AVFrame* a, const AVFrame* b) {
    if (a->width != b->width || a->height != b->height || a->format != b->format) return false;
    for (int p = 0; p < 3; ++p) {
        const int h = p == 0 ? a->height : (a->height + 1) / 2, w = p == 0 ? a->width : (a->width + 1) / 2;
        for (int y = 0; y < h; ++y)
            if (std::memcmp(a->data[p] + y * a->linesize[p], b->data[p] + y * b->linesize[p], static_cast<size_t>(w)) != 0)
                return false;
    }
    return true;
}

class Serve : public ::testing::Test {
protected:
    void SetUp() override { dir = temp_dir(); }
    std::string clip(const std::string& name, int frames, unsigned seed = 1, int w = 96, int h = 64) {
        ClipSpec c;
        c.path = dir + "/" + name;
        c.frames = frames;
        c.width = w;
        c.height = h;
        c.seed = seed;
        c.audio = false;
        write_clip(c);
        return c.path;
    }
    void write(const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; }
    std::unique_ptr<ChildProcess> serve(std::vector<std::string> extra, const std::string& log = "serve.log") {
        // The operator lets API clients read and write files in the test's folder.
        std::vector<std::string> args = {VFILTER_BIN, "serve", "--config", dir + "/streams.yaml", "--media-root", dir,
                                         "--recordings-root", dir, "--kernel-dir", dir};
        args.insert(args.end(), extra.begin(), extra.end());
        return std::make_unique<ChildProcess>(args, dir + "/" + log);
    }
    int api_port(ChildProcess& p) {
        if (!p.wait_for_log("control API: http://127.0.0.1:", 30)) return -1;
        const std::string log = p.log();
        const size_t at = log.find("control API: http://127.0.0.1:") + std::string("control API: http://127.0.0.1:").size();
        return std::atoi(log.c_str() + at);
    }
    nlohmann::json streams(int port, const std::string& token = "") { return body_json(http(port, "GET", "/streams", "", token)); }
    nlohmann::json stream(int port, const std::string& name) {
        for (const auto& s : streams(port))
            if (s["name"] == name) return s;
        return nullptr;
    }
    bool wait_state(int port, const std::string& name, const std::string& state, double timeout_s = 30) {
        for (int i = 0; i < timeout_s * 20; ++i) {
            const nlohmann::json s = stream(port, name);
            if (!s.is_null() && s["state"] == state) return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }
    std::string dir;
};

TEST_F(Serve, RunsEveryStreamAndFinalisesThemOnSigterm) {
    clip("a.mkv", 200, 1);
    clip("b.mkv", 200, 2);
    write("streams.yaml", "defaults: {codec: ffv1, realtime: true, on-overload: block}\nstreams:\n"
                          "  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, filter: sobel}\n"
                          "  - {name: b, input: " + dir + "/b.mkv, output: " + dir + "/b-out.mkv, filter: 'gaussian=sigma=1.5'}\n");
    auto p = serve({"--stats-json", dir + "/stats.json"});
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
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, codec: ffv1}\n"
                          "  - {name: gone, input: " + dir + "/missing.mkv, output: " + dir + "/gone.mkv}\n");
    auto p = serve({"--stats-json", dir + "/stats.json"});
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
    auto r = run_vfilter({"serve", "--config", dir + "/streams.yaml", "--api-port", "0", "--api-bind", "0.0.0.0"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("give it a token"), std::string::npos) << r.output;
}

TEST_F(Serve, ApiAddsAndRemovesStreamsWhileOthersRunAndRefusesBadRequests) {
    clip("a.mkv", 600, 1);
    clip("b.mkv", 600, 2);
    write("streams.yaml", "defaults: {codec: ffv1, realtime: true, on-overload: block}\nstreams:\n"
                          "  - {name: a, input: " + dir + "/a.mkv, output: " + dir + "/a-out.mkv, filter: sobel}\n");
    auto p = serve({"--api-port", "0", "--stats-json", dir + "/stats.json"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();

    const std::string b = R"({"name": "b", "input": ")" + dir + R"(/b.mkv", "output": ")" + dir + R"(/b-out.mkv", "filter": "prewitt"})";
    std::string r = http(port, "POST", "/streams", b);
    EXPECT_EQ(status_of(r), 201) << r;
    EXPECT_EQ(body_json(r)["name"], "b");
    EXPECT_EQ(status_of(http(port, "POST", "/streams", b)), 409) << "a duplicate name";
    r = http(port, "POST", "/streams", R"({"name": "c", "input": "b.mkv", "output": "c.mkv", "colour": "red"})");
    EXPECT_EQ(status_of(r), 400);
    EXPECT_NE(body_json(r)["error"].get<std::string>().find("unknown field 'colour'"), std::string::npos) << r;
    r = http(port, "POST", "/streams", R"({"name": "c", "input": "b.mkv", "output": "c.mkv", "filter": "blurry"})");
    EXPECT_EQ(status_of(r), 400);
    EXPECT_NE(body_json(r)["error"].get<std::string>().find("unknown filter 'blurry'"), std::string::npos) << r;
    r = http(port, "POST", "/streams", R"({"name": "c", "input": ")" + dir + R"(/b.mkv", "output": ")" + dir + R"(/a-out.mkv"})");
    EXPECT_EQ(status_of(r), 409) << "another stream's output: " << r;
    EXPECT_EQ(status_of(http(port, "POST", "/streams", "{nope")), 400);
    EXPECT_EQ(status_of(http(port, "PUT", "/streams/a/filter", "blurry")), 400);
    EXPECT_EQ(status_of(http(port, "PUT", "/streams/zz/filter", "sobel")), 404);
    EXPECT_EQ(status_of(http(port, "DELETE", "/streams/zz")), 404);
    EXPECT_EQ(status_of(http(port, "GET", "/nothing")), 404);
    EXPECT_EQ(streams(port).size(), 2u) << "the bad requests changed nothing";

    ASSERT_TRUE(wait_state(port, "b", "running")) << p->log();
    std::this_thread::sleep_for(1s);
    r = http(port, "DELETE", "/streams/b");
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

    const std::string metrics = http(port, "GET", "/metrics");
    EXPECT_NE(metrics.find("vfilter_frames_out_total{stream=\"a\"}"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("vfilter_streams{state=\"running\"} 1"), std::string::npos) << metrics;
    EXPECT_EQ(metrics.find("stream=\"b\""), std::string::npos) << "a removed stream leaves the metrics";
    EXPECT_EQ(status_of(http(port, "GET", "/healthz")), 200);
    EXPECT_EQ(status_of(http(port, "GET", "/readyz")), 200);

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
    EXPECT_EQ(status_of(http(port, "GET", "/streams")), 401);
    EXPECT_EQ(status_of(http(port, "GET", "/streams", "", "wrong")), 401);
    EXPECT_EQ(status_of(http(port, "DELETE", "/streams/a", "", "wrong")), 401);
    EXPECT_EQ(status_of(http(port, "GET", "/streams", "", "t0k3n-0123456789ab")), 200);
    EXPECT_EQ(status_of(http(port, "GET", "/metrics")), 200);
    EXPECT_EQ(status_of(http(port, "GET", "/healthz")), 200);
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
    const std::string r = http(port, "PUT", "/streams/a/filter", "gaussian=sigma=2");
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

// The previews over HTTP: pictures at the asked width of either side, and a bounded number of
// preview streams, so watchers never take the threads the API answers with.
TEST_F(Serve, PreviewsAnswerAtTheAskedWidthAndNeverStallTheApi) {
    clip("a.mkv", 900, 3, 160, 96);
    write("streams.yaml", "streams:\n  - {name: a, input: " + dir + "/a.mkv, output: 'null', filter: sobel, realtime: true}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    for (const std::string side : {"input", "output"}) {
        const std::string r = http(port, "GET", "/streams/a/snapshot.jpg?side=" + side + "&width=80");
        ASSERT_EQ(status_of(r), 200) << r.substr(0, 300);
        EXPECT_NE(r.find("Content-Type: image/jpeg"), std::string::npos);
        AvFramePtr pic = decode_jpeg(r.substr(r.find("\r\n\r\n") + 4));
        ASSERT_TRUE(pic) << side;
        EXPECT_EQ(pic->width, 80);
        EXPECT_EQ(pic->height, 48);
    }
    const std::string refused = http(port, "GET", "/streams/a/snapshot.jpg?width=abc");
    EXPECT_EQ(status_of(refused), 400);
    EXPECT_NE(body_json(refused)["error"].get<std::string>().find("width='abc'"), std::string::npos) << refused;

    for (int i = 0; i < 10; ++i)  // answered without a body: their slots must come back all the same
        EXPECT_EQ(status_of(http(port, "HEAD", "/streams/a/preview.mjpg")), 200);
    const std::string ask = "GET /streams/a/preview.mjpg?fps=10&width=64 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    std::vector<std::unique_ptr<HttpConnection>> watchers;
    for (int i = 0; i < 8; ++i) {
        watchers.push_back(std::make_unique<HttpConnection>(port, ask));
        const std::string& got = watchers.back()->read_until("Content-Type: image/jpeg");
        ASSERT_NE(got.find("multipart/x-mixed-replace; boundary="), std::string::npos) << "watcher " << i << ": " << got.substr(0, 300);
    }
    EXPECT_GE(std::count(watchers[0]->read_until("x", 1s).begin(), watchers[0]->read_until("x", 1s).end(), '-'), 4)
        << "pictures keep coming";
    const auto t = std::chrono::steady_clock::now();
    const std::string ninth = http(port, "GET", "/streams/a/preview.mjpg");
    EXPECT_EQ(status_of(ninth), 503) << ninth.substr(0, 300);
    EXPECT_NE(ninth.find("Retry-After"), std::string::npos);
    EXPECT_EQ(status_of(http(port, "GET", "/streams")), 200) << "the API answers while eight previews stream";
    EXPECT_LT(std::chrono::steady_clock::now() - t, 2s);
    watchers.clear();  // they leave: their threads are freed at their next picture
    bool again = false;
    for (int i = 0; i < 40 && !again; ++i) {
        HttpConnection c(port, ask);
        again = c.read_until("\r\n\r\n", 1s).rfind("HTTP/1.1 200", 0) == 0;
        if (!again) std::this_thread::sleep_for(100ms);
    }
    EXPECT_TRUE(again) << "the preview slots were not given back";
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

TEST_F(Serve, ShardsSplitTheFileBetweenProcesses) {
    clip("a.mkv", 20, 1);
    std::string yaml = "defaults: {input: " + dir + "/a.mkv, codec: ffv1}\nstreams:\n";
    for (int i = 0; i < 6; ++i) yaml += "  - {name: cam" + std::to_string(i) + ", output: " + dir + "/cam" + std::to_string(i) + ".mkv}\n";
    write("streams.yaml", yaml);
    std::vector<std::string> served;
    for (int k = 0; k < 2; ++k) {
        const std::string stats = dir + "/s" + std::to_string(k) + ".json";
        const CommandResult r = run_vfilter({"serve", "--config", dir + "/streams.yaml", "--shard", std::to_string(k) + "/2",
                                             "--stats-json", stats});
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("shard " + std::to_string(k) + "/2:"), std::string::npos) << r.output;
        const nlohmann::json entries = nlohmann::json::parse(read_file(stats));
        for (const auto& [name, s] : entries.items()) {
            EXPECT_EQ(shard_of(name, 2), k);
            served.push_back(name);
        }
    }
    std::sort(served.begin(), served.end());
    EXPECT_EQ(served, (std::vector<std::string>{"cam0", "cam1", "cam2", "cam3", "cam4", "cam5"})) << "each stream in exactly one shard";
    for (int i = 0; i < 6; ++i) EXPECT_EQ(read_video_frames(dir + "/cam" + std::to_string(i) + ".mkv").size(), 20u);
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/streams.yaml", "--shard", "2/2"}).exit_code, 2);
    // A StatefulSet pod's name stands for its ordinal; --shard-plan prints what each would serve.
    std::string discarded = "defaults: {input: " + dir + "/a.mkv, output: 'null'}\nstreams:\n";
    for (int i = 0; i < 6; ++i) discarded += "  - {name: cam" + std::to_string(i) + "}\n";
    write("null.yaml", discarded);
    const CommandResult pod = run_vfilter({"serve", "--config", dir + "/null.yaml", "--shard", "vfilter-1/2", "--stats-json", dir + "/p.json"});
    ASSERT_EQ(pod.exit_code, 0) << pod.output;
    EXPECT_EQ(nlohmann::json::parse(read_file(dir + "/p.json")).size(),
              nlohmann::json::parse(read_file(dir + "/s1.json")).size());
    const CommandResult plan = run_vfilter({"serve", "--config", dir + "/streams.yaml", "--shard-plan", "3"});
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    std::string expected;
    for (int i = 0; i < 6; ++i) expected += "cam" + std::to_string(i) + " " + std::to_string(shard_of("cam" + std::to_string(i), 3)) + "\n";
    EXPECT_EQ(plan.output, expected);
}

TEST_F(Serve, GpuStreamsArePlacedOnTheListedGpusFewestFirst) {
    clip("a.mkv", 600, 1);
    std::string yaml = "defaults: {input: " + dir + "/a.mkv, output: 'null', realtime: true}\nstreams:\n";
    for (int i = 0; i < 4; ++i) yaml += "  - {name: g" + std::to_string(i) + "}\n";
    yaml += "  - {name: c, device: cpu}\n";
    write("streams.yaml", yaml);
    auto p = serve({"--api-port", "0", "--gpus", "0,1"});
    const int port = api_port(*p);
    if (port < 0 && p->wait(10) == 2 && p->log().find("does not exist") != std::string::npos)
        GTEST_SKIP() << "this machine has one GPU: --gpus 0,1 is refused, as it must be";
    ASSERT_GT(port, 0) << p->log();
    std::map<int, int> per_gpu;
    for (const auto& s : streams(port)) {
        if (s["name"] == "c") {
            EXPECT_FALSE(s.contains("gpu")) << "a CPU stream is placed on no GPU: " << s.dump();
            continue;
        }
        ++per_gpu[s["gpu"].get<int>()];
    }
    EXPECT_EQ(per_gpu, (std::map<int, int>{{0, 2}, {1, 2}}));
    EXPECT_EQ(status_of(http(port, "DELETE", "/streams/g1")), 200);
    EXPECT_EQ(status_of(http(port, "DELETE", "/streams/g3")), 200);  // GPU 1 is empty now, GPU 0 has 2
    const std::string r = http(port, "POST", "/streams", R"({"name": "g9", "input": ")" + dir + R"(/a.mkv", "output": "null"})");
    ASSERT_EQ(status_of(r), 201) << r;
    EXPECT_EQ(body_json(r)["gpu"], 1) << "the new stream goes to the GPU with the fewest: " << r;
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/streams.yaml", "--gpus", "0,x"}).exit_code, 2);
}

TEST_F(Serve, SighupAppliesTheEditedFileAndKeepsUnchangedStreamsRunning) {
    clip("a.mkv", 900, 1);
    const std::string head = "defaults: {realtime: true, output: 'null'}\nstreams:\n";
    write("streams.yaml", head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: b, input: " + dir + "/a.mkv}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    std::this_thread::sleep_for(1s);
    const int64_t a_before = stream(port, "a")["frames_in"].get<int64_t>();
    write("streams.yaml", head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: c, input: " + dir + "/a.mkv, filter: sobel}\n");
    p->signal(SIGHUP);
    ASSERT_TRUE(p->wait_for_log("SIGHUP: " + dir + "/streams.yaml applied", 30)) << p->log();
    ASSERT_TRUE(wait_state(port, "c", "running")) << p->log();
    std::this_thread::sleep_for(500ms);
    EXPECT_TRUE(stream(port, "b").is_null()) << "b left the file";
    // Restarted, it would count from 0 again: at 25 fps, fewer frames than before the reload.
    EXPECT_GT(stream(port, "a")["frames_in"].get<int64_t>(), a_before + 5) << "a was left running, not restarted";
    EXPECT_EQ(stream(port, "c")["filter"], "sobel");
    write("streams.yaml", "streams: [unclosed\n");
    p->signal(SIGHUP);
    ASSERT_TRUE(p->wait_for_log("nothing changed", 30)) << p->log();
    EXPECT_EQ(streams(port).size(), 2u);
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

// --watch-config: the file is swapped the way the kubelet updates a ConfigMap volume (a new folder,
// then the ..data symlink renamed over), and serve applies it without a signal; a bad version is
// reported once and changes nothing.
TEST_F(Serve, WatchConfigAppliesAConfigMapSwappedInPlace) {
    clip("a.mkv", 900, 1);
    const std::string head = "defaults: {realtime: true, output: 'null'}\nstreams:\n";
    const auto publish = [&](int version, const std::string& text) {
        const std::string folder = dir + "/v" + std::to_string(version);
        fs::create_directories(folder);
        std::ofstream(folder + "/streams.yaml") << text;
        fs::create_directory_symlink(folder, dir + "/..data_tmp");
        fs::rename(dir + "/..data_tmp", dir + "/..data");
    };
    publish(1, head + "  - {name: a, input: " + dir + "/a.mkv}\n");
    fs::remove(dir + "/streams.yaml");
    fs::create_symlink("..data/streams.yaml", dir + "/streams.yaml");
    auto p = serve({"--api-port", "0", "--watch-config", "0.2"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    publish(2, head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: b, input: " + dir + "/a.mkv, filter: sobel}\n");
    ASSERT_TRUE(wait_state(port, "b", "running")) << p->log();
    EXPECT_NE(p->log().find("--watch-config: the file changed: " + dir + "/streams.yaml applied"), std::string::npos) << p->log();
    publish(3, "streams: [unclosed\n");
    ASSERT_TRUE(p->wait_for_log("nothing changed", 30)) << p->log();
    std::this_thread::sleep_for(1s);
    const std::string log = p->log();
    EXPECT_EQ(log.find("nothing changed"), log.rfind("nothing changed")) << "a bad file is reported once, not every look: " << log;
    EXPECT_EQ(streams(port).size(), 2u);
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

// The body of a chunked HTTP/1.1 answer, as far as it came.
std::string dechunked(const std::string& response) {
    size_t at = response.find("\r\n\r\n");
    if (at == std::string::npos) return "";
    at += 4;
    std::string body;
    while (at < response.size()) {
        const size_t eol = response.find("\r\n", at);
        if (eol == std::string::npos) break;
        const size_t n = std::stoul(response.substr(at, eol - at), nullptr, 16);
        if (n == 0 || eol + 2 + n > response.size()) break;
        body += response.substr(eol + 2, n);
        at = eol + 2 + n + 2;
    }
    return body;
}

struct LiveTileMessage {
    nlohmann::json header;
    std::string bytes;
};
// The messages of /live: 4-byte big-endian lengths before a JSON header and before the bytes.
std::vector<LiveTileMessage> live_messages(const std::string& body) {
    std::vector<LiveTileMessage> out;
    auto u32 = [&](size_t at) {
        return (uint32_t(uint8_t(body[at])) << 24) | (uint32_t(uint8_t(body[at + 1])) << 16) | (uint32_t(uint8_t(body[at + 2])) << 8) |
               uint32_t(uint8_t(body[at + 3]));
    };
    size_t at = 0;
    while (at + 4 <= body.size()) {
        const uint32_t hl = u32(at);
        if (at + 4 + hl + 4 > body.size()) break;
        const uint32_t bl = u32(at + 4 + hl);
        if (at + 8 + hl + bl > body.size()) break;
        out.push_back({nlohmann::json::parse(body.substr(at + 4, hl)), body.substr(at + 8 + hl, bl)});
        at += 8 + hl + bl;
    }
    return out;
}

double metric(int port, const std::string& line_start) {
    const std::string m = http(port, "GET", "/metrics");
    const size_t at = m.find("\n" + line_start + " ");
    return at == std::string::npos ? -1 : std::atof(m.c_str() + at + line_start.size() + 2);
}

// Live video: live.mp4 is fragmented MP4 that ffmpeg records and decodes without an error; /live
// carries every tile of the page over one connection (init, fragments from a keyframe, a tile
// that cannot be shown named as gone, ticks), each tile's bytes a clean stream; the preview
// encoders stop once nobody watches (metrics); a stream that records H.264 at the size asked is
// sent as its own packets, no encoder started; with a token, /live needs it like /streams.
TEST_F(Serve, LiveVideoPlaysAndItsEncodersStopWhenNobodyWatches) {
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    write("streams.yaml", "streams:\n"
                          "  - {name: a, input: 'pattern://?size=320x240&rate=25', output: 'null', filter: sobel}\n"
                          "  - {name: b, input: 'pattern://?size=320x240&rate=25', output: 'null'}\n"
                          "  - {name: c, input: 'pattern://?size=320x240&rate=25', output: " + dir + "/c.mkv}\n");
    auto p = serve({"--api-port", "0", "--api-token", "s3cret-0123456789ab"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    for (const char* name : {"a", "b", "c"}) {
        bool running = false;
        for (int i = 0; i < 300 && !running; ++i) {
            running = body_json(http(port, "GET", std::string("/streams/") + name, "", "s3cret-0123456789ab"))["state"] == "running";
            if (!running) std::this_thread::sleep_for(100ms);
        }
        ASSERT_TRUE(running) << name << ": " << p->log();
    }
    {  // 2.5 s of live.mp4, as a player reads it (the GPU machine's ffmpeg has no HTTP to fetch it itself)
        HttpConnection viewer(port, "GET /streams/a/live.mp4?width=160 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret-0123456789ab\r\n\r\n");
        const std::string answer = viewer.read_until("no such text", 2500ms);
        ASSERT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer.substr(0, 300);
        EXPECT_NE(answer.find("Content-Type: video/mp4"), std::string::npos);
        std::ofstream(dir + "/a-live.mp4", std::ios::binary) << dechunked(answer);
    }
    // Stamped by arrival (a loaded test machine bunches frames): no frame-rate grid to check.
    const test::RecordingCheck a = test::check_arrival_timed_video(dir + "/a-live.mp4");
    EXPECT_TRUE(a.clean) << a.errors;
    EXPECT_GE(a.frames, 25) << "2.5 s of a 25 fps stream (at least a second of it on a loaded machine)";

    EXPECT_EQ(status_of(http(port, "GET", "/live?streams=a")), 401) << "the token rule holds for /live";
    for (const auto& [query, why] : std::vector<std::pair<std::string, std::string>>{
             {"", "name at least one stream"}, {"streams=a:left", "input or output"}, {"streams=a&width=9", "16..1920"},
             {"streams=a&colour=red", "unknown parameter"}, {"streams=a&streams=b", "given twice"}, {"streams=a%zz", "percent-encoding"},
             {"streams=a%20b", "A-Z, a-z"}}) {
        const std::string r = http(port, "GET", "/live?" + query, "", "s3cret-0123456789ab");
        EXPECT_EQ(status_of(r), 400) << query << ": " << r.substr(0, 200);
        EXPECT_NE(r.find(why), std::string::npos) << query << ": " << r;
    }
    EXPECT_EQ(status_of(http(port, "GET", "/streams/a/live.mp4?width=abc", "", "s3cret-0123456789ab")), 400);
    EXPECT_EQ(status_of(http(port, "GET", "/streams/nosuch/live.mp4", "", "s3cret-0123456789ab")), 404);
    HttpConnection page(port, "GET /live?streams=a,b:input,nosuch&width=160 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret-0123456789ab\r\n\r\n");
    std::string got = page.read_until("no such text", 3s);
    ASSERT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got.substr(0, 300);
    EXPECT_EQ(metric(port, "vfilter_live_viewers{stream=\"a\"}"), 1);
    EXPECT_EQ(metric(port, "vfilter_live_encoders{stream=\"b\"}"), 1);
    const std::vector<LiveTileMessage> messages = live_messages(dechunked(got));
    std::map<int, std::string> stream_of_tile;
    std::map<int, int> fragments;
    int ticks = 0;
    bool gone = false;
    for (const LiveTileMessage& m : messages) {
        const std::string type = m.header["type"];
        if (type == "tick") {
            ++ticks;
            continue;
        }
        const int tile = m.header["tile"];
        if (type == "gone") {
            EXPECT_EQ(tile, 2);
            EXPECT_NE(m.header["why"].get<std::string>().find("no stream named 'nosuch'"), std::string::npos);
            gone = true;
        } else if (type == "init") {
            EXPECT_EQ(stream_of_tile.count(tile), 0u) << "one init per tile while the size stays";
            EXPECT_TRUE(std::regex_match(m.header["codec"].get<std::string>(), std::regex("avc1\\.[0-9a-f]{6}"))) << m.header.dump();
            EXPECT_EQ(m.header["width"], 160);
            EXPECT_EQ(m.header["height"], 120);
            stream_of_tile[tile] = m.bytes;
        } else {
            ASSERT_EQ(type, "fragment");
            ASSERT_EQ(stream_of_tile.count(tile), 1u) << "a fragment before its tile's init";
            if (fragments[tile]++ == 0) {
                EXPECT_TRUE(m.header["key"].get<bool>()) << "a tile starts at a keyframe";
            }
            const int64_t now_ms =
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
            EXPECT_LE(m.header["arrived"].get<int64_t>(), now_ms);
            EXPECT_GT(m.header["arrived"].get<int64_t>(), now_ms - 10000);
            stream_of_tile[tile] += m.bytes;
        }
    }
    EXPECT_TRUE(gone);
    EXPECT_GE(ticks, 2);
    for (int tile : {0, 1}) {
        EXPECT_GE(fragments[tile], 25) << "tile " << tile << ": about 3 s of 25 fps (at least a second on a loaded machine)";
        const std::string path = dir + "/tile" + std::to_string(tile) + ".mp4";
        std::ofstream(path, std::ios::binary) << stream_of_tile[tile];
        const test::RecordingCheck t = test::check_arrival_timed_video(path);  // encoded for the page: stamped by arrival
        EXPECT_TRUE(t.clean) << "tile " << tile << ": " << t.errors;
        EXPECT_EQ(t.frames, fragments[tile]);
    }
    page.close_now();
    bool stopped = false;
    for (int i = 0; i < 60 && !stopped; ++i) {
        stopped = metric(port, "vfilter_live_encoders{stream=\"a\"}") == 0 && metric(port, "vfilter_live_encoders{stream=\"b\"}") == 0;
        if (!stopped) std::this_thread::sleep_for(100ms);
    }
    EXPECT_TRUE(stopped) << "the preview encoders stop when the last viewer has gone";
    EXPECT_EQ(metric(port, "vfilter_live_viewers{stream=\"a\"}"), 0);
    EXPECT_GT(metric(port, "vfilter_live_fragments_total{stream=\"a\"}"), 50);

    // c records H.264 at 320x240: a viewer asking that width or more gets the recording's own
    // packets (B-frames and all), with no second encoder.
    HttpConnection own(port, "GET /streams/c/live.mp4?width=640 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret-0123456789ab\r\n\r\n");
    got = own.read_until("no such text", 3s);
    EXPECT_EQ(metric(port, "vfilter_live_passthrough{stream=\"c\"}"), 1);
    EXPECT_EQ(metric(port, "vfilter_live_encoders{stream=\"c\"}"), 0);
    own.close_now();
    std::ofstream(dir + "/c-live.mp4", std::ios::binary) << dechunked(got);
    const test::RecordingCheck c = test::check_recording(dir + "/c-live.mp4");
    EXPECT_TRUE(c.clean) << c.errors;
    EXPECT_GE(c.frames, 20) << "from the last keyframe on, up to 5 s of 25 fps";
    const CommandResult probe = run_command({"ffprobe", "-v", "error", "-show_entries", "stream=profile,has_b_frames", "-of", "csv=p=0",
                                             dir + "/c-live.mp4"});
    EXPECT_NE(probe.output.find("High"), std::string::npos) << "the recording's own High-profile packets: " << probe.output;
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

TEST(ServeGpus, FewestStreamsFirstAndListsAreChecked) {
    EXPECT_EQ(least_loaded_gpu({0, 1}, {}), 0);
    EXPECT_EQ(least_loaded_gpu({0, 1}, {{0, 1}}), 1);
    EXPECT_EQ(least_loaded_gpu({0, 1}, {{0, 1}, {1, 1}}), 0) << "a tie goes to the first listed";
    EXPECT_EQ(least_loaded_gpu({3, 1}, {{3, 2}, {1, 2}}), 3);
    EXPECT_EQ(least_loaded_gpu({0, 1, 2}, {{0, 5}, {1, 0}, {2, 3}}), 1);
    EXPECT_EQ(parse_gpus("all", 0), std::vector<int>{});
    EXPECT_EQ(parse_gpus("all", 2), (std::vector<int>{0, 1}));
    EXPECT_EQ(parse_gpus("1,0", 2), (std::vector<int>{1, 0}));
    EXPECT_EQ(parse_gpus("0,1", 0), (std::vector<int>{0, 1})) << "without a GPU the list is kept (it places nothing real)";
    EXPECT_THROW(parse_gpus("2", 2), Error);
    EXPECT_THROW(parse_gpus("0,0", 2), Error);
    EXPECT_THROW(parse_gpus("0,", 2), Error);
    EXPECT_THROW(parse_gpus("-1", 2), Error);
    EXPECT_THROW(parse_gpus("", 2), Error);
}

TEST(ServeShards, EveryStreamHasOneShardAndRescalingMovesFew) {
    std::vector<std::string> names;
    for (int i = 0; i < 400; ++i) names.push_back("cam" + std::to_string(i));
    for (int n = 1; n <= 8; ++n) {
        std::vector<int> per_shard(static_cast<size_t>(n), 0);
        int moved = 0;
        for (const std::string& name : names) {
            const int k = shard_of(name, n);
            ASSERT_GE(k, 0);
            ASSERT_LT(k, n);
            EXPECT_EQ(shard_of(name, n), k) << "stable";
            ++per_shard[static_cast<size_t>(k)];
            if (n > 1 && shard_of(name, n - 1) != k) {
                ++moved;
                EXPECT_EQ(k, n - 1) << name << ": from N-1 to N shards a stream only moves to the new shard";
            }
        }
        for (int count : per_shard) {
            EXPECT_GT(count, 400 / n / 2) << "shards of " << n << " are balanced";
            EXPECT_LT(count, 400 / n * 3 / 2 + 2);
        }
        if (n > 1) {
            EXPECT_GT(moved, 400 / n / 2);
            EXPECT_LT(moved, 400 / n * 3 / 2) << "about 1/N move when going to N shards";
        }
    }
    ServeConfig config = parse_serve_config("defaults: {input: a.mkv, output: 'null'}\nstreams:\n"
                                            "  - {name: a}\n  - {name: b}\n  - {name: c}\n  - {name: d}\n  - {name: e}\n", "s.yaml");
    size_t total = 0;
    for (int k = 0; k < 3; ++k) total += shard_config(config, k, 3).streams.size();
    EXPECT_EQ(total, 5u);
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

using namespace test;

// serve --demo: streams of built-in pictures, each with its own filter, running with no camera,
// no file and no config, their frames counting up; the address printed; nothing written.
TEST(ServeDemo, RunsBuiltInStreamsWithNothingToGive) {
    const std::string dir = temp_dir();
    ChildProcess p({VFILTER_BIN, "serve", "--demo", "3", "--api-port", "0"}, dir + "/demo.log");
    ASSERT_TRUE(p.wait_for_log("in a browser", 30)) << p.log();
    const std::string log = p.log();
    const size_t at = log.find("open http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << log;
    const int port = std::atoi(log.c_str() + at + std::string("open http://127.0.0.1:").size());
    ASSERT_GT(port, 0) << log;
    std::set<std::string> filters;
    nlohmann::json list;
    for (int i = 0; i < 100; ++i) {
        list = body_json(http(port, "GET", "/streams"));
        if (list.is_array() && list.size() == 3 && std::all_of(list.begin(), list.end(), [](const nlohmann::json& s) {
                return s["state"] == "running" && s["frames_out"].get<int64_t>() > 10;
            }))
            break;
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_EQ(list.size(), 3u) << list.dump();
    for (const auto& s : list) {
        EXPECT_EQ(s["state"], "running") << s.dump();
        EXPECT_GT(s["frames_out"].get<int64_t>(), 10) << s.dump();
        // Frames flow, so the last seconds' latency is there (the page shows it), and its parts,
        // each within the whole (read a moment apart, so with some room).
        const double whole = s["latency_recent_p99_ms"].get<double>();
        EXPECT_GT(whole, 0) << s.dump();
        for (const char* part : {"decode", "queue", "filter", "write"}) {
            const double ms = s["latency_recent_p99_ms_parts"][part].get<double>();
            EXPECT_GT(ms, 0) << part << ": " << s.dump();
            EXPECT_LE(ms, whole * 1.5 + 5) << part << ": " << s.dump();
        }
        EXPECT_EQ(s["input"].get<std::string>().rfind("pattern://", 0), 0u) << s.dump();
        EXPECT_EQ(s["output"], "null") << s.dump();
        filters.insert(s["filter"].get<std::string>());
    }
    EXPECT_EQ(filters.size(), 3u) << "each stream shows another filter";
    p.signal(SIGTERM);
    EXPECT_EQ(p.wait(30), 0) << p.log();
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().filename() != "demo.log";
    EXPECT_EQ(files, 0u) << "the demo wrote a file";
}

TEST(ServeDemo, ServeSaysWhatItNeeds) {
    const CommandResult none = run_vfilter({"serve"});
    EXPECT_EQ(none.exit_code, 2) << none.output;
    EXPECT_NE(none.output.find("--demo"), std::string::npos) << "names the way to try it: " << none.output;
    const CommandResult both = run_vfilter({"serve", "--demo", "--config", "x.yaml"});
    EXPECT_EQ(both.exit_code, 2) << both.output;
    EXPECT_NE(both.output.find("leave out --config"), std::string::npos) << both.output;
    const CommandResult many = run_vfilter({"serve", "--demo", "40"});
    EXPECT_EQ(many.exit_code, 2) << many.output;
}

}  // namespace
}  // namespace vf
