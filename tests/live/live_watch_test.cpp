// Cameras that watch themselves (docs/serve.md), through real RTSP cameras: GStreamer's RTSP
// server plays clips that ffmpeg made of a still scene with sensor noise, each changing at a
// known moment (black, white, a grey cover, a blur, the view shifted by a third, an object moving,
// the noise stopping: a frozen encoder; a slow dusk), to one `vfilter serve`. Each condition is
// entered within its bound of the change (2 s; motion 0.5 s) and left after it ends; the camera
// that does not change, and each camera before its change, raise nothing.
// The cameras are 320x180 at 15 fps; VF_WATCH_SIZE=WxH and VF_WATCH_FPS=N (1920x1080 and 30: the
// 1080p30 figure in docs/benchmarks.md) make them larger and faster, and VF_WATCH_SCENES=a,b,...
// keeps those scenes only (as many 1080p cameras as the machine decodes). Each condition's delay
// from the change to its event is printed ("watch latency: ...").
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;

namespace {

constexpr double kChange = 12, kChangeEnds = 18, kClipEnd = 24;  // seconds of each clip

// The cameras' picture: VF_WATCH_SIZE and VF_WATCH_FPS, else 320x180 at 15 fps.
struct Picture {
    int width = 320, height = 180, fps = 15;
    int scaled(int at_180) const { return at_180 * height / 180; }  // a length drawn for 180 lines
};

Picture picture() {
    Picture p;
    if (const char* size = std::getenv("VF_WATCH_SIZE")) std::sscanf(size, "%dx%d", &p.width, &p.height);
    if (const char* fps = std::getenv("VF_WATCH_FPS")) p.fps = std::atoi(fps);
    if (p.width < 64 || p.height < 36 || p.fps < 1) p = Picture{};
    return p;
}
// The start of a stream is seen up to a poll after its first frame; the camera's pipeline and
// the network add a little more: the change is looked for from this much before its moment.
constexpr double kSlack = 0.4;

double wall_seconds() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// rtsp_server.py's "playing /camI T" lines: when each mount's clip last began to be sent.
std::map<std::string, double> clip_starts(const std::string& camera_log) {
    std::map<std::string, double> starts;
    std::istringstream lines(camera_log);
    for (std::string line; std::getline(lines, line);) {
        char mount[64] = {};
        double t = 0;
        if (std::sscanf(line.c_str(), "playing %63s %lf", mount, &t) == 2) starts[mount] = t;
    }
    return starts;
}

struct Scene {
    std::string name;
    std::string change;     // the filters of the change (empty: none), applied before the noise
    std::string condition;  // the condition it raises ("" none)
    bool noise_stops = false;
};

const std::string kDuring = "between(t," + std::to_string(static_cast<int>(kChange)) + "," + std::to_string(static_cast<int>(kChangeEnds)) + ")";

std::vector<Scene> scenes(const Picture& p) {
    // geq's gain falls from 1 to 0.03 over 8 s from the change: a dusk (the light, not the edges).
    const std::string dusk = "geq=lum='lum(X,Y)*exp(log(0.03)*min(1,max(0,(T-" + std::to_string(static_cast<int>(kChange)) +
                             ")/8)))':cb='cb(X,Y)':cr='cr(X,Y)'";
    return {
        {"steady", "", ""},
        {"black", "drawbox=c=black:t=fill:enable='" + kDuring + "'", "dark"},
        {"white", "drawbox=c=white:t=fill:enable='" + kDuring + "'", "bright"},
        {"cover", "drawbox=c=gray:t=fill:enable='" + kDuring + "'", "covered"},
        {"blur", "gblur=sigma=" + std::to_string(p.scaled(6)) + ":enable='" + kDuring + "'", "blurred"},
        {"turned", "", "moved"},
        {"object", "", "motion"},
        {"frozen", "", "frozen", true},
        {"dusk", dusk, "dark"},
    };
}

// A clip of the scene: a still picture, wider than the view (so that the view can be shifted),
// with sensor noise, as H.264 in Matroska. The object is white: testsrc2's band where it starts is
// red, and a red one stayed unseen there for its first half second.
std::string make_clip(const std::string& dir, const std::string& still, const Scene& s, const Picture& p) {
    const std::string path = dir + "/" + s.name + ".mkv";
    const std::string fps = std::to_string(p.fps), box = std::to_string(p.scaled(36));
    std::string graph = "[0:v]crop=" + std::to_string(p.width) + ":" + std::to_string(p.height) + ":x='if(" +
                        std::string(s.name == "turned" ? kDuring : "0") + "," + std::to_string(p.width / 3) + ",0)':y=0";
    if (!s.change.empty()) graph += "," + s.change;
    if (s.name == "object")
        graph += "[bg];[1:v]format=yuv420p[box];[bg][box]overlay=x='" + std::to_string(p.scaled(20)) + "+" + std::to_string(p.scaled(50)) +
                 "*(t-" + std::to_string(kChange) + ")':y=" + std::to_string(p.scaled(70)) + ":enable='" + kDuring + "'";
    graph += ",noise=alls=5:allf=t" + std::string(s.noise_stops ? ":enable='not(" + kDuring + ")'" : "") + ",format=yuv420p[v]";
    std::vector<std::string> cmd = {"ffmpeg", "-nostdin", "-v", "error", "-y", "-loop", "1", "-framerate", fps, "-i", still};
    if (s.name == "object") cmd.insert(cmd.end(), {"-f", "lavfi", "-i", "color=c=white:s=" + box + "x" + box + ":r=" + fps});
    cmd.insert(cmd.end(), {"-filter_complex", graph, "-map", "[v]", "-t", std::to_string(kClipEnd), "-c:v", "libx264", "-preset",
                           "veryfast", "-g", fps, "-bf", "0", "-crf", "20", path});
    const CommandResult r = run_command(cmd, 120);
    EXPECT_EQ(r.exit_code, 0) << s.name << ": " << r.output;
    return path;
}

// When the clip's luma mean (full picture, as ffmpeg's signalstats reads it) first falls below
// `level`: the moment a dusk is dark.
double first_below(const std::string& clip, double level) {
    const CommandResult r = run_command({"ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-vf",
                                         "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"},
                                        120);
    double t = -1;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("frame:", 0) == 0) t = std::stod(line.substr(line.find("pts_time:") + 9));
        else if (line.rfind("lavfi.signalstats.YAVG=", 0) == 0 && std::stod(line.substr(23)) < level) return t;
    }
    return -1;
}

}  // namespace

TEST_F(Live, WatchedRtspCamerasReportEachChangeInTimeAndNothingElse) {
    NEED_RTSP_CAMERA();
    const Picture pic = picture();
    const int kFps = pic.fps;
    const std::string still = dir + "/still.png";  // a view and a half wide: the turned camera shifts by a third
    const CommandResult made = run_command({"ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                                            "testsrc2=size=" + std::to_string(pic.width * 3 / 2) + "x" + std::to_string(pic.height),
                                            "-frames:v", "1", still},
                                           60);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    std::vector<Scene> all = scenes(pic);
    if (const char* only = std::getenv("VF_WATCH_SCENES"))
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [only](const Scene& s) { return ("," + std::string(only) + ",").find("," + s.name + ",") == std::string::npos; }),
                  all.end());
    ASSERT_FALSE(all.empty()) << "VF_WATCH_SCENES names none of the scenes";
    std::string files;
    for (const Scene& s : all) files += (files.empty() ? "" : ",") + make_clip(dir, still, s, pic);
    const bool has_dusk = std::any_of(all.begin(), all.end(), [](const Scene& s) { return s.name == "dusk"; });
    const double dusk_dark = has_dusk ? first_below(dir + "/dusk.mkv", 28) : 0;
    if (has_dusk) {
        ASSERT_GT(dusk_dark, kChange) << "the dusk clip never went below the dark threshold";
    }

    RtspCamera cameras(dir, free_port(), "cameras.log", {"--files", files});
    ASSERT_TRUE(cameras.ready()) << cameras.log();
    std::string yaml = "defaults: {filter: sobel, output: 'null'}\nstreams:\n";
    for (size_t i = 0; i < all.size(); ++i)
        yaml += "  - {name: " + all[i].name + ", input: '" + cameras.url("/cam" + std::to_string(i)) + "', watch.calibration_s: 10}\n";
    ServeProcess serve(dir, yaml);
    ASSERT_TRUE(serve.ready()) << serve.log();

    // Where each camera's clip is: when the camera began sending it (its log's "playing /camI T"),
    // else its frames counted in, over the clip's rate, before the answer came (late by what serve
    // had not yet decoded: on a busy machine, more than the slack). An answer that took long makes
    // the start look later: the earliest of several is kept.
    std::map<std::string, double> started;
    for (const auto until = wall_seconds() + 30; wall_seconds() < until;) {
        const nlohmann::json list = serve.streams();
        const double now = wall_seconds();
        for (const auto& s : list)
            if (s.value("frames_in", 0) > kFps) {  // past the first second (a burst as the session starts)
                const double start = now - s["frames_in"].get<double>() / kFps;
                started[s["name"]] = started.count(s["name"]) ? std::min(started[s["name"]], start) : start;
            }
        if (started.size() == all.size() && now > std::max_element(started.begin(), started.end(), [](auto& a, auto& b) {
                                                     return a.second < b.second;
                                                 })->second + 4) break;
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_EQ(started.size(), all.size()) << serve.log();
    const std::map<std::string, double> sent_from = clip_starts(cameras.log());
    for (size_t i = 0; i < all.size(); ++i) {
        const auto sent = sent_from.find("/cam" + std::to_string(i));
        if (sent == sent_from.end()) continue;
        if (std::abs(started[all[i].name] - sent->second) > 0.1)  // what the estimate alone would have got wrong
            std::printf("%s: its clip started %.2f s before the frames counted in say\n", all[i].name.c_str(), started[all[i].name] - sent->second);
        started[all[i].name] = sent->second;
    }
    const double last_start = std::max_element(started.begin(), started.end(), [](auto& a, auto& b) { return a.second < b.second; })->second;
    std::this_thread::sleep_for(std::chrono::duration<double>(last_start + kChangeEnds + 5 - wall_seconds()));

    const std::string answer = http_get(serve.api(), "/events?limit=1000");
    const nlohmann::json found = nlohmann::json::parse(answer.substr(std::min(answer.size(), answer.find("\r\n\r\n") + 4)), nullptr, false);
    ASSERT_TRUE(found.is_object()) << found.dump();
    std::map<std::string, std::vector<nlohmann::json>> of_stream;
    for (const auto& e : found["events"]) of_stream[e["stream"]].push_back(e);
    for (const Scene& s : all) {
        SCOPED_TRACE(s.name + " (its clip started at " + std::to_string(started[s.name]) + ")");
        const double change = started[s.name] + kChange, ends = started[s.name] + kChangeEnds;
        const double entered_from = s.name == "dusk" ? started[s.name] + dusk_dark : change;
        const double bound = s.condition == "motion" ? 0.5 : 2.0;
        std::vector<nlohmann::json> mine, others;
        for (const auto& e : of_stream[s.name]) (e["kind"] == s.condition ? mine : others).push_back(e);
        // A covered, turned, or blacked-out view changes every sample once, at its start and end:
        // motion there is what a person would see too; so is the light of a dusk pressed into 8 s
        // (a real one, over minutes, is not: StreamWatcher.SlowDuskIsDarkOnlyWhenDark). Nothing
        // else, and nothing before the change.
        for (const auto& e : others) {
            const double t = e["time"].get<double>();
            const bool at_a_jump = e["kind"] == "motion" && s.name != "steady" && s.name != "frozen" && t > change - kSlack &&
                                   (s.name == "dusk" || std::abs(t - change) < 3.5 || std::abs(t - ends) < 3.5);
            EXPECT_TRUE(at_a_jump) << "raised too: " << e.dump();
        }
        if (s.condition.empty()) {
            EXPECT_TRUE(mine.empty());
            continue;
        }
        ASSERT_GE(mine.size(), 1u) << s.condition << " was never entered; events: " << nlohmann::json(of_stream[s.name]).dump();
        EXPECT_EQ(mine[0]["change"], "entered");
        std::printf("watch latency: %s entered %s %.2f s after the change, its measure past the threshold %.2f s after "
                    "(%dx%d at %d fps)\n",
                    s.name.c_str(), s.condition.c_str(), mine[0]["time"].get<double>() - entered_from,
                    mine[0]["since"].get<double>() - entered_from, pic.width, pic.height, kFps);
        EXPECT_GE(mine[0]["time"].get<double>(), entered_from - kSlack) << mine[0].dump();
        EXPECT_LE(mine[0]["time"].get<double>(), entered_from + bound + kSlack) << mine[0].dump();
        if (s.name == "dusk") {  // night stays
            EXPECT_EQ(mine.size(), 1u) << nlohmann::json(mine).dump();
            continue;
        }
        ASSERT_EQ(mine.size(), 2u) << nlohmann::json(mine).dump() << "; now: " << serve.stream(s.name)["watch"].dump();
        EXPECT_EQ(mine[1]["change"], "left");
        EXPECT_GE(mine[1]["time"].get<double>(), ends - kSlack) << mine[1].dump();
        EXPECT_LE(mine[1]["time"].get<double>(), ends + 4) << mine[1].dump();
    }
}
