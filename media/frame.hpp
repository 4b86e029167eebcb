// What flows between the stages: decoded video frames (reference-counted AVFrames, never copied
// between stages) and packets of streams that are passed through untouched (audio, subtitles),
// with the descriptions of both kinds of stream that sources give and sinks take.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "media/av_helpers.hpp"
#include "common/plane.hpp"

namespace vf {

using Clock = std::chrono::steady_clock;

struct VideoFrame {
    AvFramePtr frame;       // pts in the source's video time base
    int64_t index = 0;      // decode order, from 0
    Clock::time_point read_at{};  // when its data entered vfilter (for latency)
    // When the source gave it out decoded, when the filter stage took it, and when it came back
    // from the filters: the parts of its latency (PipelineProgress::latency_parts).
    Clock::time_point decoded_at{}, filtering_at{}, filtered_at{};
};

struct PassthroughPacket {
    AvPacketPtr packet;     // timestamps in the source stream's time base
    int source_stream = 0;
};

using PipelineItem = std::variant<VideoFrame, PassthroughPacket>;

// A non-video stream copied to the output unchanged.
struct PassthroughStream {
    int source_index = 0;
    const AVCodecParameters* codecpar = nullptr;
    AVRational time_base{1, 1000};
    const AVDictionary* metadata = nullptr;
    std::string description;  // "#1 audio aac"
};

// The channels (Y, U, V or just Y) of an image in a native format, as plane views over the
// given planes (host or device memory). RGB's are G, B and R, in the order of FFmpeg's planar
// gbrp, so a channel's number is FFmpeg's plane number (planes=, 0m, luma and chroma options) in
// packed layouts too. Alpha is no channel: the filters pass it through (alpha_plane).
std::vector<PlaneView> channel_views(AVPixelFormat format, int width, int height, uint8_t* const data[4],
                                     const int linesize[4]);
inline std::vector<PlaneView> channel_views(const AVFrame* f) {
    return channel_views(static_cast<AVPixelFormat>(f->format), f->width, f->height, f->data, f->linesize);
}

// The plane of a planar format that holds alpha (gbrap's 3), or -1: the plane the engines copy
// from input to output unchanged.
int alpha_plane(AVPixelFormat format);
// Copies `src`'s alpha plane into `dst` (same size and format); nothing for formats without one.
void copy_alpha_plane(const AVFrame* src, AVFrame* dst);

// Describes a video stream as the source delivers it and the sink must encode it.
struct VideoInfo {
    int width = 0, height = 0;
    AVPixelFormat format = AV_PIX_FMT_NONE;  // always native (see is_native_format)
    // The input's own format where `format` holds its samples in another layout (packed RGB as
    // gbrp/gbrap planes): what an output writes where its encoder takes it. NONE: `format`.
    AVPixelFormat stored_format = AV_PIX_FMT_NONE;
    AVRational time_base{1, 30};
    AVRational frame_rate{30, 1};
    AVRational sample_aspect_ratio{0, 1};
    AVColorRange color_range = AVCOL_RANGE_UNSPECIFIED;
    AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
    AVColorPrimaries color_primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic color_trc = AVCOL_TRC_UNSPECIFIED;
    AVChromaLocation chroma_location = AVCHROMA_LOC_UNSPECIFIED;
    double duration_s = 0;        // 0 when unknown
    int input_streams = 1;        // streams in the input, of any kind (ffmpeg's -r sync depends on it)
    double start_s = 0;           // the input's start time (FFmpeg's start_time, which -ss counts from); 0 when unknown
    int64_t expected_frames = 0;  // 0 when unknown

    // One frame interval in `time_base` (at least 1 tick): where a frame without a timestamp, or
    // one not after the last, is placed. 25 fps where the rate is unknown, as sources assume.
    int64_t frame_interval(AVRational in_time_base) const;
};

// Pixels a second as a share of a 1080p30 camera's (4K30: 4, 720p30: 0.44): what sizes decoders'
// work (frame threads, serve's decoder capacities). A rate that is unknown (not above 0) or not
// believable (above 1000) counts as 30.
double in_1080p30_cameras(int width, int height, double fps);

}  // namespace vf
