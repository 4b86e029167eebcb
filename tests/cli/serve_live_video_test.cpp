// `vfilter serve`'s pictures over HTTP: previews at the asked width, bounded so that watchers never
// stall the API, and live video (fragmented MP4 and the page's /live) whose encoders stop once
// nobody watches.
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
#include "support/sanitizer_build.hpp"

namespace vf {
namespace {

using namespace serve_fixture;
namespace fs = std::filesystem;

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
        const std::string r = api_request(port, "GET", "/streams/a/snapshot.jpg?side=" + side + "&width=80");
        ASSERT_EQ(status_of(r), 200) << r.substr(0, 300);
        EXPECT_NE(r.find("Content-Type: image/jpeg"), std::string::npos);
        AvFramePtr pic = decode_jpeg(r.substr(r.find("\r\n\r\n") + 4));
        ASSERT_TRUE(pic) << side;
        EXPECT_EQ(pic->width, 80);
        EXPECT_EQ(pic->height, 48);
    }
    const std::string refused = api_request(port, "GET", "/streams/a/snapshot.jpg?width=abc");
    EXPECT_EQ(status_of(refused), 400);
    EXPECT_NE(body_json(refused)["error"].get<std::string>().find("width='abc'"), std::string::npos) << refused;

    for (int i = 0; i < 10; ++i)  // answered without a body: their slots must come back all the same
        EXPECT_EQ(status_of(api_request(port, "HEAD", "/streams/a/preview.mjpg")), 200);
    const std::string ask = "GET /streams/a/preview.mjpg?fps=10&width=64 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    std::vector<std::unique_ptr<HttpConnection>> watchers;
    for (int i = 0; i < 8; ++i) {
        watchers.push_back(std::make_unique<HttpConnection>(port, ask));
        const std::string& got = watchers.back()->read_until("Content-Type: image/jpeg");
        ASSERT_NE(got.find("multipart/x-mixed-replace; boundary="), std::string::npos) << "watcher " << i << ": " << got.substr(0, 300);
    }
    // Pictures keep coming: three more parts reach the first watcher (10 a second asked) within 5 s.
    const auto parts_after_reading_100ms = [&] {
        const std::string& got = watchers[0]->read_until("\x01 (never sent)", 100ms);
        int n = 0;
        for (size_t at = got.find("Content-Type: image/jpeg"); at != std::string::npos; at = got.find("Content-Type: image/jpeg", at + 1)) ++n;
        return n;
    };
    const int first_parts = parts_after_reading_100ms();
    int parts = first_parts;
    for (int tries = 0; tries < 50 && parts < first_parts + 3; ++tries) parts = parts_after_reading_100ms();
    EXPECT_GE(parts, first_parts + 3) << "pictures keep coming";
    const auto t = std::chrono::steady_clock::now();
    const std::string ninth = api_request(port, "GET", "/streams/a/preview.mjpg");
    EXPECT_EQ(status_of(ninth), 503) << ninth.substr(0, 300);
    EXPECT_NE(ninth.find("Retry-After"), std::string::npos);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams")), 200) << "the API answers while eight previews stream";
    // Without a stall, well under a second; a stall would last as long as the watchers stay.
    EXPECT_LT(std::chrono::steady_clock::now() - t, 8s);
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
    const std::string m = api_request(port, "GET", "/metrics");
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
            running = body_json(api_request(port, "GET", std::string("/streams/") + name, "", "s3cret-0123456789ab"))["state"] == "running";
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

    EXPECT_EQ(status_of(api_request(port, "GET", "/live?streams=a")), 401) << "the token rule holds for /live";
    for (const auto& [query, why] : std::vector<std::pair<std::string, std::string>>{
             {"", "name at least one stream"}, {"streams=a:left", "input or output"}, {"streams=a&width=9", "16..1920"},
             {"streams=a&colour=red", "unknown parameter"}, {"streams=a&streams=b", "given twice"}, {"streams=a%zz", "percent-encoding"},
             {"streams=a%20b", "A-Z, a-z"}}) {
        const std::string r = api_request(port, "GET", "/live?" + query, "", "s3cret-0123456789ab");
        EXPECT_EQ(status_of(r), 400) << query << ": " << r.substr(0, 200);
        EXPECT_NE(r.find(why), std::string::npos) << query << ": " << r;
    }
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/a/live.mp4?width=abc", "", "s3cret-0123456789ab")), 400);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/nosuch/live.mp4", "", "s3cret-0123456789ab")), 404);
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
    // Under a sanitizer serve runs several times slower than the stream's rate: read for longer.
    got = own.read_until("no such text", test::kSanitizerBuild ? 9s : 3s);
    EXPECT_EQ(metric(port, "vfilter_live_passthrough{stream=\"c\"}"), 1);
    EXPECT_EQ(metric(port, "vfilter_live_encoders{stream=\"c\"}"), 0);
    own.close_now();
    std::ofstream(dir + "/c-live.mp4", std::ios::binary) << dechunked(got);
    const test::RecordingCheck c = test::check_recording(dir + "/c-live.mp4");
    EXPECT_TRUE(c.clean) << c.errors;
    EXPECT_GE(c.frames, 20) << "from the last keyframe on, then 3 s of 25 fps (9 s under a sanitizer)";
    const CommandResult probe = run_command({"ffprobe", "-v", "error", "-show_entries", "stream=profile,has_b_frames", "-of", "csv=p=0",
                                             dir + "/c-live.mp4"});
    EXPECT_NE(probe.output.find("High"), std::string::npos) << "the recording's own High-profile packets: " << probe.output;
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

}  // namespace
}  // namespace vf
