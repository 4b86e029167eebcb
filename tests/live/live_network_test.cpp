// Network protocols in and out on loopback: an RTMP server (nginx with its RTMP module), live HTTP,
// RTSP, UDP and SRT, and stdout; credentials in URLs reach no output channel.
#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// nginx with its RTMP module on loopback: live streams under /live, each recorded to DIR/NAME.flv.
std::unique_ptr<ChildProcess> start_nginx_rtmp(const std::string& dir, int port) {
    const std::string conf = dir + "/nginx.conf";
    std::ofstream(conf) << "daemon off;\nmaster_process off;\nworker_processes 1;\npid " << dir << "/nginx.pid;\n"
                        << "error_log " << dir << "/nginx-error.log;\n"
                        << "load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;\nevents { worker_connections 64; }\n"
                        << "rtmp { server { listen 127.0.0.1:" << port << "; application live { live on; record all; "
                        << "record_path " << dir << "; record_unique off; } } }\n";
    auto nginx = std::make_unique<ChildProcess>(std::vector<std::string>{"nginx", "-c", conf, "-p", dir, "-e", dir + "/nginx-error.log"},
                                                dir + "/nginx.log");
    for (int i = 0; i < 100 && !port_open(port); ++i) std::this_thread::sleep_for(50ms);
    return nginx;
}

#define NEED_NGINX_RTMP()                                                                                    \
    if (!have("command -v nginx") || !file_exists("/usr/lib/nginx/modules/ngx_rtmp_module.so"))             \
    GTEST_SKIP() << "nginx with its RTMP module is missing (nginx-light, libnginx-mod-rtmp: scripts/install_deps.sh --test)"

TEST_F(Live, PublishesToAnRtmpServer) {
    NEED_NGINX_RTMP();
    const int port = free_port();
    auto nginx_process = start_nginx_rtmp(dir, port);
    ChildProcess& nginx = *nginx_process;
    const std::string in = clip("in.mp4", "320x240", 3, 30, true);
    const CommandResult r = run_vfilter({"-i", in, "-f", "sobel", "-o", "rtmp://127.0.0.1:" + std::to_string(port) + "/live/cam"}, 60);
    ASSERT_EQ(r.exit_code, kOk) << r.output << nginx.log() << read_file(dir + "/nginx-error.log");
    std::this_thread::sleep_for(300ms);
    nginx.signal(SIGQUIT);
    nginx.wait(10);
    // What the server received, read back and decoded: every frame, and the audio with it.
    const Decoded d = decode(dir + "/cam.flv");
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 90);
    const CommandResult streams = run_command({"ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                               dir + "/cam.flv"});
    EXPECT_NE(streams.output.find("aac"), std::string::npos) << streams.output;
}

// An RTMP stream as input: ffmpeg publishes a clip to nginx, vfilter plays it from there.
TEST_F(Live, ReadsAnRtmpStream) {
    NEED_NGINX_RTMP();
    const int port = free_port();
    auto nginx = start_nginx_rtmp(dir, port);
    const std::string url = "rtmp://127.0.0.1:" + std::to_string(port) + "/live/src";
    const std::string in = clip("in.mp4", "320x240", 4);
    const std::string out = dir + "/from-rtmp.mkv";
    auto v = vfilter({"-i", url, "-f", "sobel", "-o", out, "--frames", "60", "--on-overload", "block", "--timeout", "15"});
    std::this_thread::sleep_for(500ms);
    const CommandResult sent = run_command({"ffmpeg", "-nostdin", "-v", "error", "-re", "-i", in, "-c", "copy", "-f", "flv", url}, 60);
    EXPECT_EQ(sent.exit_code, 0) << sent.output;
    ASSERT_EQ(v->wait(30), kOk) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 60);
    nginx->signal(SIGQUIT);
    nginx->wait(10);
}

// A live HTTP stream (MPEG-TS without a duration, served by ffmpeg's HTTP listener) is live.
TEST_F(Live, ReadsALiveHttpStream) {
    const int port = free_port();
    const std::string in = clip("in.mp4", "320x240", 3);
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/live.ts";
    ChildProcess server({"ffmpeg", "-nostdin", "-v", "error", "-re", "-i", in, "-c", "copy", "-f", "mpegts", "-listen", "1", url},
                        dir + "/http-server.log");
    ASSERT_TRUE(wait_for_tcp_listening(port, 30)) << server.log();  // no probe connection: it answers one client only
    const std::string out = dir + "/from-http.mkv";
    // block: the frame count is exact even where a sanitizer build cannot keep up (a live input drops by default)
    const CommandResult r = run_vfilter({"-i", url, "-f", "sobel", "-o", out, "--reconnect-max", "0", "--on-overload", "block",
                                         "--stats-json", dir + "/s.json"}, 60);
    ASSERT_EQ(r.exit_code, kOk) << r.output << server.log();
    EXPECT_TRUE(read_json(dir + "/s.json").value("live", false)) << "no duration: a live input" << r.output;
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 90);
}

// Camera URLs carry passwords and tokens: none reaches the log (FFmpeg's own debug lines included,
// text and JSON), the summary, the stats file or an error, while the URL stays readable there.
TEST_F(Live, CredentialsInUrlsNeverReachAnOutputChannel) {
    const int port = free_port();
    const std::string in = clip("in.mp4", "160x120", 1);
    ChildProcess server({"ffmpeg", "-nostdin", "-v", "error", "-i", in, "-c", "copy", "-f", "mpegts", "-listen", "1",
                         "http://127.0.0.1:" + std::to_string(port) + "/live.ts"},
                        dir + "/http-server.log");
    ASSERT_TRUE(wait_for_tcp_listening(port, 30)) << server.log();
    const std::string url = "http://viewer:Pl4ntedPW@127.0.0.1:" + std::to_string(port) + "/live.ts?token=Pl4ntedTOKEN";
    const CommandResult r = run_vfilter({"-i", url, "-f", "sobel", "-o", dir + "/o.mkv", "--reconnect-max", "0", "--debug",
                                         "--stats-json", dir + "/s.json"}, 60);
    ASSERT_EQ(r.exit_code, kOk) << r.output << server.log();
    std::ifstream stats(dir + "/s.json");
    const std::string stats_text((std::istreambuf_iterator<char>(stats)), std::istreambuf_iterator<char>());
    for (const char* secret : {"Pl4ntedPW", "Pl4ntedTOKEN"}) {
        EXPECT_EQ(r.output.find(secret), std::string::npos) << "the log shows " << secret;
        EXPECT_EQ(stats_text.find(secret), std::string::npos) << "the stats file shows " << secret;
    }
    EXPECT_NE(r.output.find("http://viewer:***@127.0.0.1"), std::string::npos) << r.output;
    EXPECT_NE(stats_text.find("token=***"), std::string::npos) << stats_text;
    // Errors, in both log formats: a camera that does not answer.
    for (const char* format : {"text", "json"}) {
        const CommandResult bad = run_vfilter({"-i", "rtsp://admin:Pl4ntedPW@127.0.0.1:" + std::to_string(free_port()) + "/cam",
                                               "-o", dir + "/x.mkv", "--timeout", "2", "--log-format", format}, 60);
        EXPECT_EQ(bad.exit_code, 3) << bad.output;
        EXPECT_EQ(bad.output.find("Pl4ntedPW"), std::string::npos) << bad.output;
        EXPECT_NE(bad.output.find("admin:***@127.0.0.1"), std::string::npos) << bad.output;
    }
}

// RTSP publish (ANNOUNCE/RECORD): GStreamer's RTSP server in record mode writes what it receives.
TEST_F(Live, PublishesToAnRtspServer) {
    NEED_RTSP_CAMERA();
    const int port = free_port();
    const std::string got = dir + "/received.mkv";
    ChildProcess server({"/usr/bin/python3", kRtspServer, std::to_string(port), "--record", got}, dir + "/rtsp-record.log");
    ASSERT_TRUE(server.wait_for_log("ready", 20)) << server.log();
    const std::string in = clip("in.mp4", "320x240", 3);
    const CommandResult r = run_vfilter({"-i", in, "--realtime", "--on-overload", "block", "-f", "sobel", "-o",
                                         "rtsp://127.0.0.1:" + std::to_string(port) + "/cam"}, 60);
    ASSERT_EQ(r.exit_code, kOk) << r.output << server.log();
    std::this_thread::sleep_for(500ms);
    server.signal(SIGTERM);
    server.wait(10);
    // GStreamer's record pipeline writes the file without a frame rate (1000/1): its timing is the
    // receiver's, not vfilter's, so the file is checked for decoding errors alone.
    const Decoded d = check_recording(got, false);
    EXPECT_TRUE(d.clean) << d.errors << server.log();
    // The server's side loses some: its record pipeline starts a moment after RECORD and drops
    // what arrives before (the file starts up to 0.7 s late), more so on a loaded machine: 69 to
    // 90 of 90 seen (an end-of-stream at TEARDOWN, tried, did not change that). Most of the
    // stream, decodable.
    EXPECT_GE(d.frames, 60) << "90 frames sent";
}

// UDP and SRT (MPEG-TS): an ffmpeg receiver on loopback records what arrives; it must decode.
TEST_F(Live, PublishesOverUdpAndSrt) {
    const std::string in = clip("in.mp4", "320x240", 2);
    for (const std::string proto : {"udp", "srt"}) {
        if (proto == "srt" && !have("ffmpeg -hide_banner -protocols 2>/dev/null | grep -qx ' *srt'")) {
            std::printf("this ffmpeg has no SRT: the SRT output is not tested\n");
            continue;
        }
        const int port = free_port();
        const std::string got = dir + "/" + proto + ".ts";
        // SRT's live mode skips a packet not retransmitted within its latency; this receiver wants
        // every packet, as a recorder would (tlpktdrop=0, which also stops the sender dropping).
        // The tail is vfilter's to deliver: it stays connected until the receiver has handed it over.
        const std::string listen = proto == "udp" ? "udp://127.0.0.1:" + std::to_string(port) + "?timeout=3000000"
                                                  : "srt://127.0.0.1:" + std::to_string(port) + "?mode=listener&tlpktdrop=0";
        ChildProcess receiver({"ffmpeg", "-nostdin", "-v", "error", "-y", "-i", listen, "-c", "copy", "-f", "mpegts", got},
                              dir + "/" + proto + "-receiver.log");
        ASSERT_TRUE(wait_for_udp_bound(port, 30)) << receiver.log();  // UDP and SRT's listener alike
        const std::string url = proto == "udp" ? "udp://127.0.0.1:" + std::to_string(port) + "?pkt_size=1316"
                                               : "srt://127.0.0.1:" + std::to_string(port) + "?mode=caller";
        // --realtime: a receiver reads at the stream's pace, as a viewer would.
        const CommandResult r = run_vfilter({"-i", in, "--realtime", "--on-overload", "block", "-f", "sobel", "-o", url}, 60);
        ASSERT_EQ(r.exit_code, kOk) << proto << ": " << r.output;
        EXPECT_NE(receiver.wait(20), -1) << proto << ": the receiver did not end";
        const Decoded d = decode(got);
        EXPECT_TRUE(d.clean) << proto << ": " << d.errors << receiver.log();
        EXPECT_GE(d.frames, 55) << proto;
    }
}

TEST_F(Live, WritesAPlayableStreamToStdout) {
    const std::string in = clip("in.mp4", "320x240", 2);
    const std::string ts = dir + "/out.ts";
    ChildProcess v({kVfilter, "-i", in, "-f", "emboss", "-o", "-", "--no-progress"}, dir + "/v.log", ts);
    ASSERT_EQ(v.wait(60), kOk) << v.log();
    const Decoded d = decode(ts);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 60);
    EXPECT_EQ(v.log().find("\x47\x40"), std::string::npos) << "no MPEG-TS bytes in the log";
}
