// Live video for browsers as fragmented MP4, the way Media Source Extensions take it: an init
// segment (ftyp and moov), then one moof+mdat fragment a frame.
// - LiveFmp4Writer puts H.264 packets into that form, a packet's fragment leaving when the next
//   packet is there (its duration is then exact, so fragments follow on without gap or overlap).
//   It takes the packets of any H.264 encoder that gives its SPS and PPS as extradata: the
//   stream's own output encoder (app/serve/preview/live_video.cpp sends those as they are), or the one below.
// - LiveFmp4Encoder scales frames to a width and encodes them with libx264 ultrafast and
//   zero-latency tuning (no B-frames, no look-ahead: one frame in, one packet out) for the writer:
//   a keyframe every `gop_s` seconds, and one at once when asked (a new viewer starts without
//   waiting for the next).
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
    int64_t taken_ms = 0;   // what the packet was given with (when its frame arrived)
};

class LiveFmp4Writer {
public:
    // codecpar: an H.264 stream with its extradata (Annex B or avcC); time_base: its packets'.
    LiveFmp4Writer(const AVCodecParameters& codecpar, AVRational time_base);
    ~LiveFmp4Writer();
    LiveFmp4Writer(const LiveFmp4Writer&) = delete;
    LiveFmp4Writer& operator=(const LiveFmp4Writer&) = delete;

    const std::string& init_segment() const { return init_; }
    const std::string& codec() const { return codec_; }  // the MSE codec string, e.g. avc1.42c01f
    // Takes the packet (its timestamps in the time base given; B-frames allowed) and returns the
    // previous one's fragment, if any. Throws Error(Internal) when FFmpeg fails.
    std::vector<LiveFragment> write(const AVPacket& packet, int64_t taken_ms);

private:
    static int write_bytes(void* self, AvioWriteBuffer data, int size);
    LiveFragment flush_held();
    void release();

    AVFormatContext* mux_ = nullptr;
    AVStream* stream_ = nullptr;
    AVRational time_base_;
    std::string written_, init_, codec_;
    AvPacketPtr held_;
    int64_t held_taken_ms_ = 0;
    int64_t first_dts_ = AV_NOPTS_VALUE;  // the timeline starts at the first packet
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
    const std::string& init_segment() const;
    int init_generation() const { return init_generation_; }
    const std::string& codec() const;  // "" before the first frame
    int width() const { return out_width_; }
    int height() const { return out_height_; }

private:
    void open(const AVFrame& frame);

    int asked_width_;
    double gop_s_;
    int in_width_ = 0, in_height_ = 0;
    int out_width_ = 0, out_height_ = 0;
    AvCodecContextPtr encoder_;
    std::unique_ptr<LiveFmp4Writer> writer_;
    FrameConverter converter_;
    AvFramePtr scaled_;
    AvPacketPtr packet_;
    int init_generation_ = 0;
    int64_t first_ms_ = -1, last_pts_ = -1, next_keyframe_ms_ = 0;
    bool keyframe_asked_ = false;
};

}  // namespace vf
