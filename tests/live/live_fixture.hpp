// What the live tests share: the fixture (a temporary folder, clips made by ffmpeg, vfilter as a
// child process), an RTSP camera (GStreamer's RTSP server, tests/live/rtsp_server.py), vfilter
// serve on a config file, and the checks of a recording. The peers come from
// scripts/install_deps.sh --test; where one is missing the test skips and says so.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"

namespace vf::test::live {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

inline const std::string kVfilter = VFILTER_BIN;
inline const std::string kRtspServer = std::string(VF_SOURCE_DIR) + "/tests/live/rtsp_server.py";
inline const std::string kCutStreamServer = std::string(VF_SOURCE_DIR) + "/tests/live/cut_stream_server.py";
constexpr int kOk = 0, kUsage = 2, kInput = 3, kOutput = 4, kDamaged = 5;

inline bool have(const std::string& probe) { return run_command({"sh", "-c", probe + " >/dev/null 2>&1"}, 30).exit_code == 0; }

// Frames that decode, and whether the whole file decodes without a single error line and with
// strictly increasing timestamps (tests/support/recording_check.hpp).
using Decoded = RecordingCheck;
inline Decoded decode(const std::string& path) { return check_recording(path); }

inline std::vector<double> video_pts(const std::string& path) {
    const CommandResult r = run_command({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                         "-of", "csv=p=0", path}, 60);
    std::vector<double> t;
    std::stringstream ss(r.output);
    for (std::string line; std::getline(ss, line);)
        if (!line.empty() && (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-')) t.push_back(std::stod(line));
    std::sort(t.begin(), t.end());
    return t;
}

// The port a run's log names for its metrics endpoint (--metrics-port 0 picks one), -1 if none.
inline int metrics_port_in(const std::string& log) {
    std::smatch m;
    return std::regex_search(log, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/metrics")) ? std::stoi(m[1]) : -1;
}

inline nlohmann::json read_json(const std::string& path) {
    const std::string text = read_file(path);
    return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
}

class Live : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        if (!have("ffmpeg -version")) GTEST_SKIP() << "the ffmpeg command is missing (scripts/install_deps.sh --test installs it)";
        // The GPU machines carry a static FFmpeg: the minimal one has no network and few muxers;
        // the container profile's has what these tests use (recordings are checked with ffprobe
        // where framemd5 is missing).
        static const bool full = have("ffmpeg -hide_banner -protocols | grep -qx ' *udp'") &&
                                 have("ffmpeg -hide_banner -protocols | grep -qx ' *tcp'") &&
                                 have("ffmpeg -hide_banner -muxers | grep -q ' segment '");
        if (!full) GTEST_SKIP() << "this ffmpeg lacks network protocols or muxers the live tests use (a minimal build?)";
    }
    // A clip made by ffmpeg: test pattern, optional audio.
    // A kernel file: a dense, non-separable 31x31 matrix, far slower than 30 fps on one thread at
    // 720p (about 75 ms a frame on the 2-core CI machine).
    std::string dense31_kernel() {
        const std::string path = dir + "/dense31.txt";
        std::ofstream k(path);
        for (int r = 0; r < 31; ++r, k << "\n")
            for (int c = 0; c < 31; ++c) k << (r * r + 3 * c + r * c) % 5 - 2 << " ";
        return path;
    }

    std::string clip(const std::string& name, const std::string& size, double seconds, int fps = 30, bool audio = false) {
        const std::string path = dir + "/" + name;
        std::vector<std::string> cmd = {"ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                                        "testsrc2=size=" + size + ":rate=" + std::to_string(fps)};
        if (audio) cmd.insert(cmd.end(), {"-f", "lavfi", "-i", "sine=frequency=440"});
        cmd.insert(cmd.end(), {"-t", std::to_string(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-g",
                               std::to_string(fps), "-pix_fmt", "yuv420p"});
        if (audio) cmd.insert(cmd.end(), {"-c:a", "aac"});
        cmd.push_back(path);
        const CommandResult r = run_command(cmd, 120);
        if (r.exit_code != 0) ADD_FAILURE() << r.output;
        return path;
    }
    // A connection cut inside a frame, then a whole stream: decoded as `decoding` says (options),
    // by `nvdec_decoder` when it names one; `sees_the_cut`: the decoder flags the half frame.
    void cut_frame_is_counted_at_the_cut(const std::vector<std::string>& decoding, const std::string& nvdec_decoder,
                                         bool sees_the_cut);
    // Two sizes in one live MPEG-TS stream over UDP.
    void size_change_is_scaled_and_kept(const std::vector<std::string>& decoding, const std::string& nvdec_decoder);
    std::unique_ptr<ChildProcess> vfilter(std::vector<std::string> args, const std::string& log_name = "vfilter.log") {
        args.insert(args.begin(), kVfilter);
        args.push_back("--no-progress");
        return std::make_unique<ChildProcess>(args, dir + "/" + log_name);
    }
    std::string dir;
};

// GStreamer's RTSP server with a live H.264 test pattern at rtsp://127.0.0.1:port/cam.
class RtspCamera {
public:
    // extra: rtsp_server.py's options (--auth USER:PASS, ...).
    RtspCamera(const std::string& dir, int port, const std::string& log_name = "rtsp-server.log",
               std::vector<std::string> extra = {})
        : dir_(dir), port_(port), log_name_(log_name), extra_(std::move(extra)) {
        start();
    }
    static bool available() {
        return have("/usr/bin/python3 -c \"import gi; gi.require_version('GstRtspServer', '1.0'); "
                    "gi.require_version('Gst', '1.0'); from gi.repository import Gst, GstRtspServer; Gst.init(None); "
                    "assert Gst.ElementFactory.find('x264enc') and Gst.ElementFactory.find('rtph264pay')\"");
    }
    void start() {
        std::vector<std::string> args = {"/usr/bin/python3", kRtspServer, std::to_string(port_)};
        args.insert(args.end(), extra_.begin(), extra_.end());
        process_ = std::make_unique<ChildProcess>(args, dir_ + "/" + log_name_);
        ready_ = process_->wait_for_log("ready", 20);
    }
    void kill_now() {  // as a camera losing power: no goodbye
        process_->signal(SIGKILL);
        process_->wait(10);
    }
    bool ready() const { return ready_; }
    std::string url(const std::string& path = "/cam") const { return "rtsp://127.0.0.1:" + std::to_string(port_) + path; }
    std::string log() const { return process_->log(); }

private:
    std::string dir_;
    int port_;
    std::string log_name_;
    std::vector<std::string> extra_;
    bool ready_ = false;
    std::unique_ptr<ChildProcess> process_;
};

// vfilter serve on a config file, with its control API on a free port. `extra`: more serve
// options; `small_disk`: a folder that serve sees as a tmpfs of that size (SmallDisk).
class ServeProcess {
public:
    ServeProcess(const std::string& dir, const std::string& yaml, std::vector<std::string> extra = {},
                 const std::string& small_disk = "", const std::string& small_disk_setup = "") {
        std::ofstream(dir + "/streams.yaml") << yaml;
        std::vector<std::string> args = {"env", "VFILTER_STATS_JSON=" + dir + "/s.json", kVfilter, "serve", "--config",
                                         dir + "/streams.yaml", "--api-port", "0"};
        args.insert(args.end(), extra.begin(), extra.end());
        if (!small_disk.empty()) {
            // A mount namespace of its own (unshare execs, so the child is vfilter itself and the
            // test sees the tmpfs at /proc/PID/root).
            std::vector<std::string> wrap = {"unshare", "-rm", "sh", "-c",
                                             "mount -t tmpfs -o size=" + small_disk + " tmpfs '" + dir + "/disk' && " +
                                                 small_disk_setup + " exec \"$0\" \"$@\""};
            args.insert(args.begin(), wrap.begin(), wrap.end());
        }
        process_ = std::make_unique<ChildProcess>(args, dir + "/serve.log");
        if (!process_->wait_for_log("control API: http://127.0.0.1:", 30)) return;
        std::smatch m;
        const std::string log = process_->log();
        if (std::regex_search(log, m, std::regex("127\\.0\\.0\\.1:([0-9]+)/streams"))) api_ = std::stoi(m[1]);
    }
    bool ready() const { return api_ > 0; }
    int api() const { return api_; }
    // A path inside serve's mount namespace, as the test can read it.
    std::string seen(const std::string& path) const { return "/proc/" + std::to_string(process_->pid()) + "/root" + path; }
    ChildProcess& process() { return *process_; }
    std::string log() const { return process_->log(); }
    nlohmann::json streams() const {
        const std::string r = http_get(api_, "/streams");
        const size_t at = r.find("\r\n\r\n");
        return at == std::string::npos ? nlohmann::json::array() : nlohmann::json::parse(r.substr(at + 4), nullptr, false);
    }
    nlohmann::json stream(const std::string& name) const {
        for (const auto& s : streams())
            if (s["name"] == name) return s;
        return nullptr;
    }
    // Until stream `name` is in `state` (with at least min_reconnects), up to timeout_s.
    bool wait_for(const std::string& name, const std::string& state, int min_reconnects = 0, double timeout_s = 30) const {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < until) {
            const nlohmann::json s = stream(name);
            if (!s.is_null() && s["state"] == state && s["reconnects"].get<int>() >= min_reconnects) return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }

private:
    std::unique_ptr<ChildProcess> process_;
    int api_ = 0;
};

// Whether this machine lets a test mount a tmpfs in a mount namespace of its own (unshare -rm):
// a small disk that fills.
inline bool can_mount_small_disk(const std::string& dir) {
    fs::create_directories(dir + "/probe");
    return run_command({"unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs \"$0\"", dir + "/probe"}, 30).exit_code == 0;
}

#define NEED_SMALL_DISK()                                                                                             \
    if (!can_mount_small_disk(dir))                                                                                   \
    GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here (unshare -rm; user namespaces disabled?)"

#define NEED_RTSP_CAMERA()                                                                                            \
    if (!RtspCamera::available())                                                                                     \
    GTEST_SKIP() << "GStreamer's RTSP server is missing (python3-gi, gir1.2-gst-rtsp-server-1.0, "                    \
                    "gstreamer1.0-plugins-ugly: scripts/install_deps.sh --test installs them)"

}  // namespace vf::test::live
