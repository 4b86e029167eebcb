// What makes an input live, and how live inputs are opened and paced: camera and stream URLs,
// V4L2 capture devices (/dev/videoN, v4l2:///dev/videoN) with their size, rate and format, the
// RTSP transport, low-latency demuxing, and --realtime pacing of files (like ffmpeg -re).
#pragma once

#include <atomic>
#include <string>

#include "media/frame.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

struct LiveInputOptions {
    std::string rtsp_transport = "tcp";  // tcp | udp
    std::string input_size;              // capture devices: "1280x720"
    double input_fps = 0;                // capture devices: frames per second (0: the device's default)
    std::string input_format;            // capture devices: a pixel format (yuyv422) or codec (mjpeg)
    bool low_latency = false;            // no demuxer buffering, minimal probing
};

// "/dev/video0" and "v4l2:///dev/video0" name a V4L2 capture device; sets *device to its path.
bool is_capture_device(const std::string& url, std::string* device = nullptr);

// Camera and stream protocols (rtsp, rtmp, srt, udp, rtp, tcp) and capture devices. HTTP inputs
// are live when they have no known duration (decided after opening).
bool is_live_url(const std::string& url);

// The reconnect backoff: the wait after `delay` seconds failed, doubled up to 30 s. A live input
// that went down and one that cannot be opened at start are retried alike.
double next_reconnect_delay(double delay);

// Checks the capture and transport options (Usage errors) and returns the demuxer options for
// opening `url` (the caller frees them) and, for capture devices, the demuxer to use.
AVDictionary* live_open_options(const std::string& url, const LiveInputOptions& options, const AVInputFormat** format);

// Sleeps in short slices so that a stop request ends the wait at once; false when stopped.
bool sleep_unless_stopped(double seconds, const std::atomic<bool>& stop);

// Releases frames at the pace of their timestamps (--realtime). Falling more than a second
// behind (a slow start, a reconnect) restarts the clock instead of rushing to catch up.
class RealtimePacer {
public:
    void pace(double timestamp_s, const std::atomic<bool>& stop);

private:
    bool started_ = false;
    double first_ts_ = 0;
    Clock::time_point first_at_{};
};

}  // namespace vf
