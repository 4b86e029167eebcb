// Opening an input's demuxer: files, URLs, capture devices and '-' (stdin), with only the
// allowed protocols, under the I/O watchdog so a dead source fails instead of hanging; and what
// the opened video stream is (size, rate, colour, duration).
#pragma once

#include <string>

#include "decode/live_input.hpp"
#include "media/av_helpers.hpp"
#include "media/frame.hpp"
#include "media/io_watchdog.hpp"

namespace vf {

// The --timeout for an input: `timeout_s` when set (>= 0), else kDefaultNetworkTimeoutS for
// network inputs and none for local files, pipes and capture devices.
double input_timeout(const std::string& url, double timeout_s);

// Opens and probes `url`. Throws Error(Input) with a one-line reason (unreadable, silent past
// the watchdog's deadline, no streams) and Error(Usage) for a refused protocol. A `video_decoder`
// decodes the video streams instead of their own codec's (ffmpeg's -c:v before -i), from probing on.
AvInputPtr open_demuxer(const std::string& url, const LiveInputOptions& live, const std::string& allowed_protocols,
                        IoWatchdog& watchdog, const AVCodec* video_decoder = nullptr);

// The --timeout error: "input 'URL' sent nothing for N s while DOING (--timeout); ...".
std::string silent_message(const std::string& url, double timeout_s, const char* doing);

// ffmpeg's -ss before -i: seeks the demuxer to the key frame at or before `seek_s` from the
// input's start (the frames before `seek_s` are then dropped: pipeline/time_cut.hpp). Where the
// input cannot seek, a warning, and it is read from its start, as ffmpeg does.
void seek_input(AVFormatContext* ctx, double seek_s, const std::string& url);

// The stream's size, time base, frame rate, aspect, colour and expected length; the pixel format
// is left to the caller (it depends on where the frames are decoded).
VideoInfo describe_video_stream(const AVFormatContext* ctx, const AVStream* st);

}  // namespace vf
