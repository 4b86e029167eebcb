// Writes small test clips with libavcodec: video frames from a callback, plus an optional sine
// audio track, in any container/codec pair FFmpeg supports.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "media/frame.hpp"

namespace vf::test {

struct ClipSpec {
    std::string path;
    int width = 64, height = 48;
    AVPixelFormat format = AV_PIX_FMT_YUV420P;
    int frames = 10;
    AVRational frame_rate{25, 1};
    std::string video_codec = "ffv1";
    bool audio = true;        // mp2 (in mkv/ts) or aac, 1 kHz sine
    unsigned seed = 1;        // random frame content
    int gop_size = 0;         // frames from one key frame to the next; 0: the encoder's default
};

// Writes the clip and returns the frames it encoded (exact copies, for lossless codecs).
std::vector<AvFramePtr> write_clip(const ClipSpec& spec);

// An H.264 clip NVDEC decodes (libx264 with x264's defaults, B-frames included; no audio), a key
// frame every `gop_size` frames (0: x264's choice); returns `path`. x264 may keep one frame fewer.
std::string write_h264_clip(const std::string& path, int width, int height, int frames, int gop_size = 0);

// Decodes every video frame of a file.
std::vector<AvFramePtr> read_video_frames(const std::string& path);

struct StreamSummary {
    int video_streams = 0, audio_streams = 0;
    int64_t audio_packets = 0;
    std::vector<int64_t> video_pts;     // in video_time_base
    AVRational video_time_base{0, 1};
    int width = 0, height = 0;
    AVPixelFormat format = AV_PIX_FMT_NONE;
};
StreamSummary summarize(const std::string& path);

}  // namespace vf::test
