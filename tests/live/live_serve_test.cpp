// vfilter serve with live cameras: several cameras in one process, one restarted; cameras down at
// start; a stream waiting for its camera; a single run waiting for its input.
#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// For a failure's message: a recording's video packet times and the end of a long log, so that a
// restarted camera's timing fault seen only under a slow run says where and why.
static std::string recording_times(const std::string& path) {
    const CommandResult r = run_command(
        {"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path}, 60);
    std::string times;
    for (const char c : r.output) times += c == '\n' ? ' ' : c;
    return "\nvideo packet times (s): " + times;
}
static std::string log_tail(const std::string& log) { return log.size() > 6000 ? "..." + log.substr(log.size() - 6000) : log; }

// `vfilter serve` with four RTSP cameras in one process: one camera dies and comes back; it
// reconnects on its own while the other three record with no frame lost (block policy); all four
// recordings play; a password in one camera's URL reaches no log line, API answer, metric or
// stats file.
TEST_F(Live, ServeFourCamerasOneRestartedTheOthersLoseNothing) {
    NEED_RTSP_CAMERA();
    std::vector<int> ports;
    std::vector<std::unique_ptr<RtspCamera>> cams;
    for (int i = 0; i < 4; ++i) {
        ports.push_back(free_port());
        cams.push_back(std::make_unique<RtspCamera>(dir, ports[i], "cam" + std::to_string(i) + ".log"));
        ASSERT_TRUE(cams[i]->ready()) << cams[i]->log();
    }
    std::string yaml = "defaults: {filter: sobel, on-overload: block, reconnect-delay: 0.3, preset: ultrafast}\nstreams:\n";
    for (int i = 0; i < 4; ++i) {
        std::string url = cams[i]->url();
        if (i == 1) url = "rtsp://admin:Pl4ntedPW@127.0.0.1:" + std::to_string(ports[i]) + "/cam";
        yaml += "  - {name: cam" + std::to_string(i) + ", input: '" + url + "', output: " + dir + "/cam" + std::to_string(i) + ".mkv}\n";
    }
    ServeProcess serve(dir, yaml);
    ASSERT_TRUE(serve.ready()) << serve.log();
    ChildProcess* v = &serve.process();
    const int api = serve.api();
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(serve.wait_for("cam" + std::to_string(i), "running")) << v->log();
    std::this_thread::sleep_for(2s);
    cams[2]->kill_now();
    ASSERT_TRUE(serve.wait_for("cam2", "reconnecting")) << v->log();
    EXPECT_EQ(serve.stream("cam0")["state"], "running");
    std::this_thread::sleep_for(1500ms);
    cams[2] = std::make_unique<RtspCamera>(dir, ports[2], "cam2-again.log");
    ASSERT_TRUE(cams[2]->ready()) << cams[2]->log();
    ASSERT_TRUE(serve.wait_for("cam2", "running", 1)) << v->log();
    std::this_thread::sleep_for(2s);
    const std::string api_text = http_get(api, "/streams") + http_get(api, "/metrics");
    v->signal(SIGINT);
    ASSERT_EQ(v->wait(60), kOk) << v->log();

    const nlohmann::json s = read_json(dir + "/s.json");
    for (int i = 0; i < 4; ++i) {
        const std::string name = "cam" + std::to_string(i);
        ASSERT_TRUE(s.contains(name)) << s.dump(2);
        const nlohmann::json& c = s[name];
        EXPECT_EQ(c["state"], "stopped") << name << ": " << c.dump();
        const Decoded d = decode(dir + "/" + name + ".mkv");
        EXPECT_TRUE(d.clean) << name << ": " << d.errors << recording_times(dir + "/" + name + ".mkv") << "\nserve's log:\n"
                             << log_tail(v->log());
        EXPECT_EQ(d.frames, c["frames_out"].get<int>()) << name;
        if (i == 2) {
            EXPECT_GE(c["reconnects"].get<int>(), 1);
            EXPECT_GE(d.frames, 90) << "2 s before the outage and 2 s after";
        } else {
            EXPECT_EQ(c["reconnects"].get<int>(), 0) << name;
            EXPECT_EQ(c["frames_dropped"].get<int>(), 0) << name;
            EXPECT_EQ(c["frames_in"], c["frames_out"]) << name << " lost nothing";
            EXPECT_GE(d.frames, 150) << name << " recorded the whole time, about 5.5 s";
        }
    }
    const std::string stats_text = read_file(dir + "/s.json");
    for (const std::string* text : {&stats_text, &api_text}) EXPECT_EQ(text->find("Pl4ntedPW"), std::string::npos) << *text;
    EXPECT_EQ(v->log().find("Pl4ntedPW"), std::string::npos) << v->log();
    EXPECT_NE(api_text.find("admin:***@127.0.0.1"), std::string::npos) << api_text;
    EXPECT_NE(api_text.find("vfilter_frames_out_total{stream=\"cam3\"}"), std::string::npos) << api_text;
}

// serve after a power cut, when the servers boot before the cameras: a camera that does not answer
// yet is `waiting` (with its reason and the next attempt) and is recorded once it comes up 10 s
// later; a wrong password and an unknown path are `failed` at once, with reasons that say so; a
// stream that asked not to wait fails at once as before.
TEST_F(Live, ServeWaitsForACameraThatIsDownAtStartButNotForAWrongAddress) {
    NEED_RTSP_CAMERA();
    const int late_port = free_port(), auth_port = free_port(), open_port = free_port();
    RtspCamera locked(dir, auth_port, "locked.log", {"--auth", "admin:right"});
    RtspCamera open(dir, open_port, "open.log");
    ASSERT_TRUE(locked.ready()) << locked.log();
    ASSERT_TRUE(open.ready()) << open.log();
    const std::string late_url = "rtsp://127.0.0.1:" + std::to_string(late_port) + "/cam";
    std::string yaml = "defaults: {filter: sobel, reconnect-delay: 0.5, preset: ultrafast}\nstreams:\n";
    yaml += "  - {name: late, input: '" + late_url + "', output: " + dir + "/late.mkv}\n";
    yaml += "  - {name: password, input: 'rtsp://admin:wr0ngPW@127.0.0.1:" + std::to_string(auth_port) + "/cam', output: " + dir +
            "/password.mkv}\n";
    yaml += "  - {name: path, input: '" + open.url("/no-such-cam") + "', output: " + dir + "/path.mkv}\n";
    yaml += "  - {name: impatient, input: '" + late_url + "', output: " + dir + "/impatient.mkv, wait-for-input: false}\n";
    const auto started = std::chrono::steady_clock::now();
    ServeProcess serve(dir, yaml);
    ASSERT_TRUE(serve.ready()) << serve.log();

    ASSERT_TRUE(serve.wait_for("password", "failed", 0, 10)) << serve.log();
    ASSERT_TRUE(serve.wait_for("path", "failed", 0, 10)) << serve.log();
    ASSERT_TRUE(serve.wait_for("impatient", "failed", 0, 10)) << serve.log();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0)
        << "a wrong address is reported at once, not after retries";
    const std::string password_error = serve.stream("password")["last_error"];
    EXPECT_NE(password_error.find("refused the credentials"), std::string::npos) << password_error;
    EXPECT_EQ(password_error.find("wr0ngPW"), std::string::npos) << "the password is redacted: " << password_error;
    const std::string path_error = serve.stream("path")["last_error"];
    EXPECT_NE(path_error.find("no such stream"), std::string::npos) << path_error;
    const std::string impatient_error = serve.stream("impatient")["last_error"];
    EXPECT_NE(impatient_error.find("Connection refused"), std::string::npos) << impatient_error;

    ASSERT_TRUE(serve.wait_for("late", "waiting", 0, 10)) << serve.log();
    std::this_thread::sleep_for(2s);  // a few attempts
    const nlohmann::json waiting = serve.stream("late");
    EXPECT_NE(waiting["last_error"].get<std::string>().find("Connection refused"), std::string::npos) << waiting.dump();
    EXPECT_GE(waiting["input_attempts"].get<int>(), 2) << waiting.dump();
    EXPECT_GE(waiting["next_attempt_s"].get<double>(), 0.0) << waiting.dump();
    EXPECT_LE(waiting["next_attempt_s"].get<double>(), 30.0) << waiting.dump();
    const std::string metrics = http_get(serve.api(), "/metrics");
    EXPECT_NE(metrics.find("vfilter_streams{state=\"waiting\"} 1"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("vfilter_streams{state=\"failed\"} 3"), std::string::npos) << metrics;

    std::this_thread::sleep_until(started + 10s);
    RtspCamera late(dir, late_port, "late.log");  // the camera finishes booting
    ASSERT_TRUE(late.ready()) << late.log();
    ASSERT_TRUE(serve.wait_for("late", "running", 0, 40)) << serve.log();
    const nlohmann::json running = serve.stream("late");
    EXPECT_EQ(running["last_error"], "") << "the wait's reason is gone once it runs: " << running.dump();
    EXPECT_FALSE(running.contains("next_attempt_s")) << running.dump();
    std::this_thread::sleep_for(3s);
    serve.process().signal(SIGINT);
    ASSERT_EQ(serve.process().wait(60), kOk) << serve.log();

    const nlohmann::json s = read_json(dir + "/s.json");
    ASSERT_TRUE(s.contains("late")) << s.dump(2);
    EXPECT_EQ(s["late"]["state"], "stopped") << s["late"].dump();
    const Decoded d = decode(dir + "/late.mkv");
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_GE(d.frames, 45) << "about 3 s recorded once the camera answered";
    EXPECT_EQ(d.frames, s["late"]["frames_out"].get<int>());
    for (const std::string name : {"password", "path", "impatient"}) {
        EXPECT_EQ(s[name]["state"], "failed") << name;
        EXPECT_FALSE(file_exists(dir + "/" + name + ".mkv")) << name << ": a stream that never opened writes nothing";
    }
    EXPECT_EQ(serve.log().find("wr0ngPW"), std::string::npos) << "no password in the log";
}

// A stream removed while it waits for its camera stops at once, with nothing written.
TEST_F(Live, ServeStreamWaitingForItsCameraIsRemovedAtOnce) {
    const std::string url = "rtsp://127.0.0.1:" + std::to_string(free_port()) + "/cam";
    ServeProcess serve(dir, "streams:\n  - {name: late, input: '" + url + "', output: " + dir + "/late.mkv, reconnect-delay: 5}\n");
    ASSERT_TRUE(serve.ready()) << serve.log();
    ASSERT_TRUE(serve.wait_for("late", "waiting", 0, 10)) << serve.log();
    const auto asked = std::chrono::steady_clock::now();
    const std::string r = http_exchange(serve.api(), "DELETE /streams/late HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
    const size_t body = r.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos) << r;
    EXPECT_EQ(nlohmann::json::parse(r.substr(body + 4), nullptr, false).value("state", ""), "stopped") << r;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count(), 3.0)
        << "the 5 s wait is not sat out";
    EXPECT_FALSE(file_exists(dir + "/late.mkv"));
    serve.process().signal(SIGINT);
    EXPECT_EQ(serve.process().wait(30), kOk) << serve.log();
}

// The single run fails fast on a camera that does not answer (exit 3) unless asked to wait: with
// --wait-for-input it records once the camera comes up; a wrong path still fails at once, and a
// Ctrl-C while it waits leaves with 130 and nothing written.
TEST_F(Live, SingleRunWaitsForItsInputOnlyWhenAsked) {
    NEED_RTSP_CAMERA();
    const int port = free_port();
    const std::string url = "rtsp://127.0.0.1:" + std::to_string(port) + "/cam";
    const CommandResult fast = run_vfilter({"-i", url, "-o", dir + "/fast.mkv"}, 30);
    EXPECT_EQ(fast.exit_code, kInput) << fast.output;
    EXPECT_NE(fast.output.find("Connection refused"), std::string::npos) << "the reason on the error line: " << fast.output;

    auto waiting = vfilter({"-i", url, "-f", "sobel", "-o", dir + "/late.mkv", "--wait-for-input", "--reconnect-delay", "0.3",
                            "--frames", "45", "--on-overload", "block"},
                           "late.log");
    ASSERT_TRUE(waiting->wait_for_log("waiting for it", 10)) << waiting->log();
    std::this_thread::sleep_for(2s);
    RtspCamera cam(dir, port);
    ASSERT_TRUE(cam.ready()) << cam.log();
    ASSERT_EQ(waiting->wait(60), kOk) << waiting->log();
    const Decoded d = decode(dir + "/late.mkv");
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_EQ(d.frames, 45);

    const CommandResult path = run_vfilter({"-i", cam.url("/no-such-cam"), "-o", dir + "/path.mkv", "--wait-for-input"}, 30);
    EXPECT_EQ(path.exit_code, kInput) << path.output;
    // Exit 3 at once (a run that waited would still be waiting when run_vfilter kills it), with the
    // reason on its error line.
    EXPECT_NE(path.output.find("no such stream"), std::string::npos) << path.output;

    const std::string nobody = "rtsp://127.0.0.1:" + std::to_string(free_port()) + "/cam";
    auto stopped = vfilter({"-i", nobody, "-o", dir + "/never.mkv", "--wait-for-input", "--reconnect-delay", "5"}, "never.log");
    ASSERT_TRUE(stopped->wait_for_log("waiting for it", 10)) << stopped->log();
    stopped->signal(SIGINT);
    EXPECT_EQ(stopped->wait(10), 130) << stopped->log();
    EXPECT_FALSE(file_exists(dir + "/never.mkv"));
    EXPECT_FALSE(file_exists(dir + "/never.mkv.partial"));
}
