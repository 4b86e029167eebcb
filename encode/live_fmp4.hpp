// Live video for browsers: frames scaled to a width, encoded as H.264 (libx264 ultrafast with
// zero-latency tuning: no B-frames, no look-ahead, one frame in, one packet out) and written as
// fragmented MP4, one fragment a frame, the way Media Source Extensions take it: an init segment
// (ftyp and moov), then moof+mdat fragments. A frame's fragment leaves when the next frame is
// encoded (one frame interval later: its duration is then exact). A keyframe every `gop_s`
// seconds, and one more at once when asked (a new viewer starts without waiting for the next).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "media/av_helpers.hpp"

namespace vf {

// What FFmpeg's write callbacks receive (const from FFmpeg 7's libavformat 61 on).
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using AvioWriteBuffer = const uint8_t*;
#else
using AvioWriteBuffer = uint8_t*;
#endif

struct LiveFragment {
    std::string bytes;      // one moof+mdat: one frame
    bool keyframe = false;  // a viewer may start here
    int64_t pts_ms = 0;     // its presentation time in the fragments' timeline
    int64_t taken_ms = 0;   // the time its frame was given to encode() with
};

class LiveFmp4Encoder {
public:
    explicit LiveFmp4Encoder(int width, double gop_s = 2.0);
    ~LiveFmp4Encoder();
    LiveFmp4Encoder(const LiveFmp4Encoder&) = delete;
    LiveFmp4Encoder& operator=(const LiveFmp4Encoder&) = delete;

    // Encodes one frame (any format the pipeline carries, hardware frames downloaded first) taken
    // at `taken_ms` on a steady clock; returns the previous frame's fragment (nothing for the
    // first). The first frame fixes the size: a frame of another size restarts the encoder (a new
    // init segment; init_generation() grows). Throws Error(Internal) when FFmpeg fails.
    std::vector<LiveFragment> encode(const AVFrame& frame, int64_t taken_ms);
    void request_keyframe() { keyframe_asked_ = true; }

    // ftyp+moov for the fragments made so far; empty before the first frame.
    const std::string& init_segment() const { return init_; }
    int init_generation() const { return init_generation_; }
    // The MSE codec string of the stream, e.g. avc1.42c01f ("" before the first frame).
    const std::string& codec() const { return codec_; }
    int width() const { return out_width_; }
    int height() const { return out_height_; }

private:
    void open(const AVFrame& frame);
    LiveFragment write_fragment();  // the held packet as one fragment
    void close();
    static int write_bytes(void* self, AvioWriteBuffer data, int size);

    int asked_width_;
    double gop_s_;
    int in_width_ = 0, in_height_ = 0, in_format_ = -1;
    int out_width_ = 0, out_height_ = 0;
    AvCodecContextPtr encoder_;
    AVFormatContext* mux_ = nullptr;
    AVStream* stream_ = nullptr;
    FrameConverter converter_;
    AvFramePtr scaled_;
    AvPacketPtr packet_;
    AvPacketPtr held_;         // the last frame's packet, written once the next one is here
    int64_t held_pts_ms_ = 0, held_taken_ms_ = 0;
    std::string written_;  // what the muxer wrote since it was last taken
    std::string init_;
    std::string codec_;
    int init_generation_ = 0;
    int64_t first_ms_ = -1, last_pts_ = -1, next_keyframe_ms_ = 0;
    bool keyframe_asked_ = false;
};

}  // namespace vf
