// Live inputs against real peers on loopback: an RTSP camera that restarts or stays down, a TCP
// stream cut mid-frame (tests/live/cut_stream_server.py), inputs that fail, a stream that changes
// size midway, capture device options.
#include "live/live_fixture.hpp"

#include <arpa/inet.h>
#include <glob.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_F(Live, RtspCameraIsFilteredToAFile) {
    NEED_RTSP_CAMERA();
    RtspCamera cam(dir, free_port());
    ASSERT_TRUE(cam.ready()) << cam.log();
    const std::string out = dir + "/cam.mp4";
    auto v = vfilter({"-i", cam.url(), "-f", "sobel", "-o", out, "--frames", "60", "--on-overload", "block",
                      "--stats-json", dir + "/s.json"});
    ASSERT_EQ(v->wait(60), kOk) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 60);
    const nlohmann::json s = read_json(dir + "/s.json");
    EXPECT_TRUE(s.value("live", false));
    EXPECT_NE(read_file(out).find("moof"), std::string::npos) << "a live recording to MP4 is fragmented by default";
}

TEST_F(Live, RtspCameraRestartIsReconnectedIntoOneOutput) {
    NEED_RTSP_CAMERA();
    const int port = free_port();
    RtspCamera cam(dir, port);
    ASSERT_TRUE(cam.ready()) << cam.log();
    const std::string out = dir + "/rec.mp4";
    auto v = vfilter({"-i", cam.url(), "-f", "gaussian=sigma=1", "-o", out, "--reconnect-delay", "0.3", "--stats-json",
                      dir + "/s.json"});
    ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
    std::this_thread::sleep_for(2s);
    cam.kill_now();  // the camera dies mid-stream ...
    ASSERT_TRUE(v->wait_for_log("reconnecting", 20)) << v->log();
    std::this_thread::sleep_for(2s);
    RtspCamera again(dir, port);  // ... and comes back on the same address
    ASSERT_TRUE(again.ready()) << again.log();
    ASSERT_TRUE(v->wait_for_log("is back after", 30)) << v->log();
    std::this_thread::sleep_for(2s);
    v->signal(SIGINT);
    ASSERT_EQ(v->wait(30), kOk) << v->log();

    const nlohmann::json s = read_json(dir + "/s.json");
    EXPECT_GE(s.value("reconnects", 0), 1);
    EXPECT_GE(s.value("input_gap_seconds", 0.0), 1.5) << "the outage lasted at least 2 s";
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_GE(d.frames, 90) << "about 2 s before the outage and 2 s after";
    // One timeline: increasing, and the gap shows as a jump of about the outage's length.
    const std::vector<double> pts = video_pts(out);
    ASSERT_FALSE(pts.empty());
    double biggest = 0;
    for (size_t i = 1; i < pts.size(); ++i) {
        EXPECT_GT(pts[i], pts[i - 1]);
        biggest = std::max(biggest, pts[i] - pts[i - 1]);
    }
    EXPECT_GE(biggest, 1.5);
    EXPECT_LT(biggest, 30.0);
}

// A connection cut inside a frame leaves that frame half decoded. The outage is reported as a
// reconnect, and the half frame is counted at the cut, not as damage: the run ends with 0.
void Live::cut_frame_is_counted_at_the_cut(const std::vector<std::string>& decoding, const std::string& nvdec_decoder,
                                           bool sees_the_cut) {
    const std::string ts = clip("cam.ts", "320x240", 2);
    const int port = free_port();
    ChildProcess server({"python3", kCutStreamServer, ts, std::to_string(port), "--cut", "0.6", "--seconds", "2"},
                        dir + "/server.log");
    ASSERT_TRUE(server.wait_for_log("ready", 10)) << server.log();
    const std::string out = dir + "/rec.mkv";
    std::vector<std::string> args = {"-i", "tcp://127.0.0.1:" + std::to_string(port), "-f", "sobel", "-o", out,
                                     "--reconnect-delay", "0.2", "--on-overload", "block", "--stats-json", dir + "/s.json"};
    args.insert(args.end(), decoding.begin(), decoding.end());
    auto v = vfilter(args);
    ASSERT_TRUE(server.wait_for_log("cut after", 30)) << server.log() << v->log();
    ASSERT_TRUE(v->wait_for_log("is back after", 30)) << v->log();
    ASSERT_TRUE(server.wait_for_log("sent all", 30)) << server.log();
    std::this_thread::sleep_for(1s);  // the last packets through the pipeline
    v->signal(SIGINT);
    ASSERT_EQ(v->wait(30), kOk) << v->log();

    const nlohmann::json s = read_json(dir + "/s.json");
    EXPECT_EQ(s.value("reconnects", 0), 1);
    if (sees_the_cut) {
        EXPECT_GE(s.value("damaged_at_cuts", 0), 1) << "the frame the cut went through decodes with errors";
    }
    EXPECT_EQ(s.value("input_damage", std::string("?")), "");
    if (!nvdec_decoder.empty()) {
        EXPECT_EQ(s.value("nvdec_decoder", std::string("?")), nvdec_decoder) << v->log();
    }
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_GE(d.frames, 90) << "36 frames before the cut and 60 after";
}

TEST_F(Live, FrameCutByAnOutageIsCountedAtTheCutNotAsDamage) { cut_frame_is_counted_at_the_cut({"--hwdec", "none"}, "", true); }

// Ctrl-C while a live camera's next frame has only begun to arrive (its access unit delimiter, as
// an RTSP camera sends it in a packet of its own): FFmpeg ends the interrupted read by handing over
// that fragment, which is no damage of the input. The run the user stopped ends with 0 and keeps
// every whole frame.
TEST_F(Live, StoppedWhileANextFrameHasOnlyBegunEndsCleanWithEveryWholeFrame) {
    const std::string mp4 = clip("cam.mp4", "320x240", 8);  // longer than FFmpeg probes a live input (5 s)
    const std::string raw = dir + "/cam.h264";
    const CommandResult annexb =
        run_command({"ffmpeg", "-nostdin", "-v", "error", "-i", mp4, "-c", "copy", "-bsf:v", "h264_mp4toannexb", raw}, 60);
    ASSERT_EQ(annexb.exit_code, 0) << annexb.output;
    std::ofstream(raw, std::ios::app | std::ios::binary) << std::string("\x00\x00\x00\x01\x09\xf0", 6);
    const int port = free_port();
    ChildProcess server({"python3", kCutStreamServer, raw, std::to_string(port), "--once", "--seconds", "0.5"},
                        dir + "/server.log");
    ASSERT_TRUE(server.wait_for_log("ready", 10)) << server.log();
    const std::string out = dir + "/rec.mkv";
    auto v = vfilter({"-i", "tcp://127.0.0.1:" + std::to_string(port), "-f", "sobel", "-o", out, "--hwdec", "none",
                      "--on-overload", "block", "--timeout", "60", "--metrics-port", "0", "--stats-json", dir + "/s.json"});
    ASSERT_TRUE(server.wait_for_log("sent all", 30)) << server.log() << v->log();
    ASSERT_TRUE(v->wait_for_log("/metrics", 30)) << v->log();
    const int metrics_port = metrics_port_in(v->log());
    ASSERT_GT(metrics_port, 0) << v->log();
    // Every frame read: the count stays still (a decoder's threads may hold the last few frames
    // until the end), so the read now waits inside the fragment.
    auto frames_in = [&] {
        std::smatch n;
        const std::string body = http_get(metrics_port, "/metrics");
        return std::regex_search(body, n, std::regex("vfilter_frames_in_total ([0-9]+)")) ? std::stoi(n[1]) : -1;
    };
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    for (int last = -1, still = 0; still < 3;) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << v->log();
        std::this_thread::sleep_for(500ms);
        const int now = frames_in();
        still = now > 200 && now == last ? still + 1 : 0;
        last = now;
    }
    v->signal(SIGINT);
    ASSERT_EQ(v->wait(30), kOk) << v->log();
    const nlohmann::json s = read_json(dir + "/s.json");
    EXPECT_EQ(s.value("input_damage", std::string("?")), "") << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 240) << "every whole frame of the 8 s camera";
}

// The GPU machine: NVDEC through each of its decoders (--nvdec-decoder), which a reconnect
// replaces. vfilter's flags the half frame at the cut (NVDEC's decode status), and it must be
// counted there, not as damage; FFmpeg's hwaccel does not see it (the GPU decodes what came).
#define NEED_NVDEC()                    \
    if (!have("nvidia-smi -L"))         \
    GTEST_SKIP() << "no NVIDIA GPU here: NVDEC's live tests run on the GPU machine (scripts/gpu_camera_bench.sh live)"

TEST_F(Live, FrameCutByAnOutageOnNvdecIsCountedAtTheCutWithEitherDecoder) {
    NEED_NVDEC();
    for (const std::string decoder : {"ffmpeg", "vfilter"}) {
        SCOPED_TRACE("--nvdec-decoder " + decoder);
        cut_frame_is_counted_at_the_cut({"--hwdec", "cuda", "--nvdec-decoder", decoder}, decoder, decoder == "vfilter");
        dir = temp_dir();
    }
}

TEST_F(Live, LiveInputThatStaysDownEndsAfterReconnectMax) {
    NEED_RTSP_CAMERA();
    RtspCamera cam(dir, free_port());
    ASSERT_TRUE(cam.ready()) << cam.log();
    const std::string out = dir + "/rec.mkv";
    auto v = vfilter({"-i", cam.url(), "-o", out, "--reconnect-max", "2", "--reconnect-delay", "0.2"});
    ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
    std::this_thread::sleep_for(1500ms);
    cam.kill_now();
    const int code = v->wait(30);
    EXPECT_EQ(code, kDamaged) << v->log();
    // The one line that says why the run ended with 5 is what the user reads.
    EXPECT_NE(v->log().find("2 reconnect attempts failed"), std::string::npos) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << "what was recorded is kept and finalised: " << d.errors;
}

TEST_F(Live, BadLiveInputsFailClearlyWithinTheTimeout) {
    NEED_RTSP_CAMERA();
    RtspCamera cam(dir, free_port());
    ASSERT_TRUE(cam.ready()) << cam.log();
    struct Case {
        std::string url, message;
    };
    // A server that accepts and never sends.
    const int silent = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(silent, 4), 0);
    socklen_t len = sizeof addr;
    getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &len);
    const std::vector<Case> cases = {
        {cam.url("/no-such-path"), "the server has no such stream"},               // wrong path: 404
        {"rtsp://127.0.0.1:" + std::to_string(free_port()) + "/cam", "Connection refused"},  // nothing listens
        {"rtsp://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/cam", "sent nothing for 2 s"},
        {"rtmp://127.0.0.1:" + std::to_string(free_port()) + "/live/x", "cannot open input"},
        // A host that does not answer (TEST-NET-1, never routed): refused at once or timed out.
        {"rtsp://192.0.2.1:554/cam", "input 'rtsp://192.0.2.1:554/cam'"},
    };
    for (const Case& c : cases) {
        const std::string out = dir + "/never.mp4";
        const auto start = std::chrono::steady_clock::now();
        const CommandResult r = run_vfilter({"-i", c.url, "--timeout", "2", "-o", out}, 60);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(r.exit_code, kInput) << c.url << ": " << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.url << ": " << r.output;
        EXPECT_NE(r.output.find("vfilter: error:"), std::string::npos) << r.output;
        EXPECT_LT(took, 15.0) << c.url << " took too long";
        EXPECT_FALSE(file_exists(out)) << "a camera that never answered leaves no output";
    }
    close(silent);
}

void Live::size_change_is_scaled_and_kept(const std::vector<std::string>& decoding, const std::string& nvdec_decoder) {
    // Two parts of different sizes sent as one live MPEG-TS stream over UDP.
    const std::string a = clip("a.ts", "320x240", 1.5), b = clip("b.ts", "480x360", 1.5);
    const std::string joined = dir + "/joined.ts";
    {
        std::ofstream j(joined, std::ios::binary);
        j << read_file(a) << read_file(b);
    }
    const int port = free_port();
    const std::string out = dir + "/udp.mkv";
    std::vector<std::string> args = {"-i", "udp://127.0.0.1:" + std::to_string(port), "-o", out, "--timeout", "2",
                                     "--reconnect-max", "0", "--on-overload", "block", "--stats-json", dir + "/s.json"};
    args.insert(args.end(), decoding.begin(), decoding.end());
    auto v = vfilter(args);
    std::this_thread::sleep_for(500ms);
    const CommandResult sent = run_command({"ffmpeg", "-nostdin", "-v", "error", "-re", "-i", joined, "-c", "copy", "-f",
                                            "mpegts", "udp://127.0.0.1:" + std::to_string(port) + "?pkt_size=1316"}, 60);
    ASSERT_EQ(sent.exit_code, 0) << sent.output;
    const int code = v->wait(30);  // the sender is gone: silence ends the run after --timeout
    EXPECT_EQ(code, kDamaged) << v->log();
    // The one line that says why the run ended with 5 is what the user reads.
    EXPECT_NE(v->log().find("sent nothing for 2 s"), std::string::npos) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_GE(d.frames, 60) << "more than the first size's 45 frames: the second size's are kept";
    const CommandResult size = run_command({"ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", out});
    EXPECT_NE(size.output.find("320,240"), std::string::npos) << size.output;
    if (!nvdec_decoder.empty()) {
        EXPECT_EQ(read_json(dir + "/s.json").value("nvdec_decoder", std::string("?")), nvdec_decoder) << v->log();
    }
}

TEST_F(Live, StreamChangingResolutionMidwayIsScaledAndKept) { size_change_is_scaled_and_kept({}, ""); }

TEST_F(Live, StreamChangingResolutionOnNvdecIsScaledAndKeptWithEitherDecoder) {
    NEED_NVDEC();
    for (const std::string decoder : {"ffmpeg", "vfilter"}) {
        SCOPED_TRACE("--nvdec-decoder " + decoder);
        size_change_is_scaled_and_kept({"--hwdec", "cuda", "--nvdec-decoder", decoder}, decoder);
        dir = temp_dir();
    }
}

TEST_F(Live, CaptureDeviceOptions) {
    const std::string out = dir + "/cam.mp4";
    const std::string in = clip("in.mp4", "320x240", 1);
    CommandResult r = run_vfilter({"-i", in, "--input-size", "640x480", "-o", out});
    EXPECT_EQ(r.exit_code, kUsage) << r.output;
    EXPECT_NE(r.output.find("apply to capture devices"), std::string::npos) << r.output;
    r = run_vfilter({"-i", "/dev/video0", "--input-size", "640by480", "-o", out});
    EXPECT_EQ(r.exit_code, kUsage) << r.output;
    EXPECT_NE(r.output.find("expected WIDTHxHEIGHT"), std::string::npos) << r.output;
    r = run_vfilter({"-i", "/dev/video0", "--input-format", "notaformat", "-o", out});
    EXPECT_EQ(r.exit_code, kUsage) << r.output;
    glob_t g{};
    const bool camera = glob("/dev/video*", 0, nullptr, &g) == 0 && g.gl_pathc > 0;
    const std::string device = camera ? g.gl_pathv[0] : "";
    globfree(&g);
    if (!camera) {
        r = run_vfilter({"-i", "/dev/video9", "-o", out}, 30);
        EXPECT_EQ(r.exit_code, kInput) << r.output;
        EXPECT_NE(r.output.find("cannot open input '/dev/video9'"), std::string::npos) << r.output;
        GTEST_SKIP() << "no /dev/video* device here: the capture itself is not tested (options and errors were)";
    }
    r = run_vfilter({"-i", device, "--frames", "30", "-o", out, "--input-size", "640x480"}, 60);
    EXPECT_EQ(r.exit_code, kOk) << r.output;
    EXPECT_TRUE(decode(out).clean);
}
