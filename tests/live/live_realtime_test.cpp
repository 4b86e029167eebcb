// Real time: a run falling behind its input drops frames instead of queueing, the latency it adds,
// and the metrics endpoint it serves while it runs.
#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_F(Live, FallingBehindALiveInputDropsFramesInsteadOfQueueing) {
    if (kSanitizerBuild) GTEST_SKIP() << "a sanitizer build filters ten times slower: the blocking run would take minutes";
    const std::string in = clip("in.mp4", "1280x720", 4);
    const std::string kernel = dense31_kernel();
    for (const std::string policy : {"drop", "block"}) {
        const std::string json = dir + "/" + policy + ".json";
        auto v = vfilter({"-i", in, "--realtime", "-f", "convolution=file=" + kernel, "--threads", "1", "-o", "null",
                          "--on-overload", policy, "--stats-json", json}, policy + ".log");
        ASSERT_EQ(v->wait(120), kOk) << v->log();
        const nlohmann::json s = read_json(json);
        const int64_t in_frames = s.value("frames_in", 0), out_frames = s.value("frames_out", 0), dropped = s.value("frames_dropped", 0);
        EXPECT_EQ(in_frames, 120);
        EXPECT_EQ(out_frames + dropped, in_frames) << policy;
        if (policy == "drop") {
            EXPECT_GT(dropped, 0) << "one thread cannot filter 720p at 30 fps with a 31x31 matrix: " << v->log();
            // Bounds in frames filtered, not seconds: a frame takes 160 ms here, more on a loaded
            // 2-core CI machine (a fixed 2 s failed there at 2.1 s). A kept frame waits behind at
            // most the queue (p99 about 12 frames' time here), and the run ends within the queue's
            // drain after the 4 s input (5.4 s here); blocking instead ends 120 frames' time later.
            const double frame_s = 1.0 / std::max(0.1, s.value("sustained_fps", 0.0));
            EXPECT_LT(s["latency_ms"].value("p99", 1e9), 20 * frame_s * 1000) << "dropping keeps latency bounded";
            EXPECT_LT(s.value("wall_seconds", 1e9), 4.0 + 20 * frame_s) << "dropping keeps up with the input";
        } else {
            EXPECT_EQ(dropped, 0);
        }
    }
}

TEST_F(Live, MetricsEndpointServesPrometheusText) {
    const std::string in = clip("in.mp4", "320x240", 6);
    auto v = vfilter({"-i", in, "--realtime", "-o", "null", "--metrics-port", "0", "-v"});
    ASSERT_TRUE(v->wait_for_log("/metrics", 30)) << v->log();
    const int port = metrics_port_in(v->log());
    ASSERT_GT(port, 0) << v->log();
    auto get = [&](const std::string& path) { return http_get(port, path); };
    // Frames written for a while: asked again until more than 10 (15 s at most, for a loaded machine).
    const auto frames_out = [](const std::string& metrics) {
        std::smatch m;
        return std::regex_search(metrics, m, std::regex("vfilter_frames_out_total ([0-9]+)")) ? std::stoi(m[1]) : 0;
    };
    std::string body = get("/metrics");
    for (int i = 0; i < 150 && frames_out(body) <= 10; ++i) {
        std::this_thread::sleep_for(100ms);
        body = get("/metrics");
    }
    EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
    for (const char* name : {"vfilter_frames_in_total", "vfilter_frames_out_total", "vfilter_frames_dropped_total",
                             "vfilter_fps", "vfilter_stage_busy_ratio{stage=\"filter\"}", "vfilter_latency_seconds{quantile=\"0.99\"}",
                             "vfilter_reconnects_total 0", "vfilter_source_up 1", "# TYPE vfilter_frames_out_total counter"})
        EXPECT_NE(body.find(name), std::string::npos) << name << " missing in:\n" << body;
    EXPECT_GT(frames_out(body), 10) << body;
    std::smatch recent;  // frames are written, so the last seconds' latency is above 0
    ASSERT_TRUE(std::regex_search(body, recent, std::regex("vfilter_latency_recent_seconds\\{quantile=\"0.99\"\\} ([0-9.e+-]+)"))) << body;
    EXPECT_GT(std::stod(recent[1]), 0) << body;
    EXPECT_NE(get("/other").find("404"), std::string::npos);
    EXPECT_NE(get("/healthz").find("200 OK"), std::string::npos);
    EXPECT_NE(get("/readyz").find("200 OK"), std::string::npos) << "the input delivers";
    v->signal(SIGINT);
    EXPECT_EQ(v->wait(20), kOk) << v->log();
}

// --realtime --low-latency on a 1080p30 source, CPU path: a frame is written about a frame
// interval (33 ms) after it was read, where without it the encoder's look-ahead and B-frames hold
// a second or more. The median within the interval; the worst frames within three, since a loaded
// 2-core CI machine delays one frame in a hundred by a scheduling slice or two (p99 44 ms there
// once, with the median at 14). The release build's p99 is a benchmark (docs/benchmarks.md,
// "Live sources"). Runs alone (RUN_SERIAL) so other tests do not load the cores.
TEST_F(Live, LowLatencyHoldsNoFramesBack) {
    if (kSanitizerBuild) GTEST_SKIP() << "a sanitizer build is several times slower: the latency target is for the Release build";
    const std::string in = clip("in.mp4", "1920x1080", 8);
    const std::string json = dir + "/s.json";
    const CommandResult r = run_vfilter({"-i", in, "--realtime", "--low-latency", "-f", "sobel", "--device", "cpu", "-o",
                                         dir + "/out.mp4", "--stats-json", json}, 120);
    ASSERT_EQ(r.exit_code, kOk) << r.output;
    const nlohmann::json s = read_json(json);
    const double frame_ms = 1000.0 / 30;
    EXPECT_EQ(s.value("frames_dropped", -1), 0);
    EXPECT_LE(s["latency_ms"].value("p50", 1e9), frame_ms) << r.output;
    EXPECT_LE(s["latency_ms"].value("p99", 1e9), 3 * frame_ms) << r.output;
    EXPECT_TRUE(decode(dir + "/out.mp4").clean);
}

// A paced input decoded on the CPU, without --low-latency: the decoder holds no frame back for
// threads real time does not need. FFmpeg's automatic frame threads (a core each, plus one) held
// every frame a frame period a thread: 67 ms on two cores, about 500 ms on sixteen. The median,
// not p99, so that a loaded test machine does not fail it; to a null output, so that the
// encoder's look-ahead stays out.
TEST_F(Live, PacedCpuDecodingHoldsNoFramesBack) {
    const std::string in = clip("in.mp4", "640x360", 4);
    const std::string json = dir + "/s.json";
    const CommandResult r = run_vfilter({"-i", in, "--realtime", "--hwdec", "none", "-f", "sobel", "--device", "cpu", "-o",
                                         "null", "--stats-json", json}, 120);
    ASSERT_EQ(r.exit_code, kOk) << r.output;
    const nlohmann::json s = read_json(json);
    // Under the sanitizers decoding (35 ms) and filtering (32 ms) a frame each took longer than a
    // frame period on CI's two cores, so real time rightly dropped frames (9 of 120 there), and
    // the median latency was 54 ms: the timing and the frame count are the release build's to
    // check; a sanitizer build runs the path for memory errors, and every frame is accounted for.
    if (kSanitizerBuild) {
        EXPECT_EQ(s.value("frames_out", -1) + s.value("frames_dropped", -1), 120) << s.dump();
        EXPECT_GT(s.value("frames_out", -1), 0) << s.dump();
    } else {
        EXPECT_EQ(s.value("frames_out", -1), 120) << s.dump();
        EXPECT_LT(s["latency_ms"].value("p50", 1e9), 30.0) << "less than a frame period: " << s.dump();
    }
}
