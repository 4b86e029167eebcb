#include "decode/live_input.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <thread>

#include "common/error.hpp"
#include "media/protocols.hpp"

extern "C" {
#include <libavdevice/avdevice.h>
#include <libavutil/pixdesc.h>
}

namespace vf {

bool is_capture_device(const std::string& url, std::string* device) {
    std::string path = url;
    if (url.rfind("v4l2://", 0) == 0) path = url.substr(7);
    const bool yes = path.rfind("/dev/video", 0) == 0;
    if (yes && device) *device = path;
    return yes;
}

bool is_live_url(const std::string& url) {
    if (is_capture_device(url)) return true;
    const std::string p = input_protocol(url);
    return p == "rtsp" || p == "rtsps" || p == "rtmp" || p == "rtmps" || p == "srt" || p == "udp" || p == "rtp" ||
           p == "tcp";
}

double next_reconnect_delay(double delay) { return std::min(delay * 2, 30.0); }

AVDictionary* live_open_options(const std::string& url, const LiveInputOptions& o, const AVInputFormat** format) {
    *format = nullptr;
    AVDictionary* d = nullptr;
    const bool device = is_capture_device(url);
    if (!device && (!o.input_size.empty() || o.input_fps > 0 || !o.input_format.empty()))
        fail(ErrorCategory::Usage, "--input-size, --input-fps and --input-format apply to capture devices (/dev/videoN); '" +
                                       url + "' is not one");
    if (o.rtsp_transport != "tcp" && o.rtsp_transport != "udp")
        fail(ErrorCategory::Usage, "--rtsp-transport '" + o.rtsp_transport + "': expected tcp or udp");
    if (device) {
        static std::once_flag devices_registered;  // process-wide: FFmpeg's device list is the process's
        std::call_once(devices_registered, [] { avdevice_register_all(); });  // process-wide: as above
        *format = av_find_input_format("video4linux2");
        if (!*format) fail(ErrorCategory::Input, "this FFmpeg was built without V4L2 capture (libavdevice)");
        if (!o.input_size.empty()) {
            int w = 0, h = 0;
            if (std::sscanf(o.input_size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0 || w > 16384 || h > 16384)
                fail(ErrorCategory::Usage, "--input-size '" + o.input_size + "': expected WIDTHxHEIGHT, e.g. 1280x720");
            av_dict_set(&d, "video_size", o.input_size.c_str(), 0);
        }
        if (o.input_fps > 0) av_dict_set(&d, "framerate", std::to_string(o.input_fps).c_str(), 0);
        if (!o.input_format.empty()) {
            if (av_get_pix_fmt(o.input_format.c_str()) == AV_PIX_FMT_NONE &&
                !avcodec_find_decoder_by_name(o.input_format.c_str()))
                fail(ErrorCategory::Usage, "--input-format '" + o.input_format +
                                               "': not a pixel format (yuyv422, nv12, ...) or codec (mjpeg, h264)");
            av_dict_set(&d, "input_format", o.input_format.c_str(), 0);
        }
    }
    const std::string proto = input_protocol(url);
    if (proto == "rtsp" || proto == "rtsps") av_dict_set(&d, "rtsp_transport", o.rtsp_transport.c_str(), 0);
    if (o.low_latency && is_live_url(url)) {
        // The frames read while probing are old by the time probing ends: a live feed skips them
        // (a file must not lose them, so it keeps FFmpeg's buffering).
        av_dict_set(&d, "fflags", "nobuffer", 0);
        av_dict_set(&d, "probesize", "500000", 0);
        av_dict_set(&d, "analyzeduration", "500000", 0);
    }
    return d;
}

bool sleep_unless_stopped(double seconds, const std::atomic<bool>& stop) {
    const Clock::time_point until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (!stop) {
        const auto left = until - Clock::now();
        if (left <= Clock::duration::zero()) return true;
        std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(20)));
    }
    return false;
}

void RealtimePacer::pace(double ts, const std::atomic<bool>& stop) {
    const Clock::time_point now = Clock::now();
    if (!started_) {
        started_ = true;
        first_ts_ = ts;
        first_at_ = now;
        return;
    }
    const double due = ts - first_ts_;
    const double elapsed = std::chrono::duration<double>(now - first_at_).count();
    if (elapsed - due > 1.0 || due - elapsed > 5.0) {  // far behind, or a timestamp jump: restart the clock
        first_ts_ = ts;
        first_at_ = now;
        return;
    }
    if (due > elapsed) sleep_unless_stopped(due - elapsed, stop);
}

}  // namespace vf
