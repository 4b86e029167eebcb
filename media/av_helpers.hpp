// RAII handles and error checking for FFmpeg's libav*, and the bridge from FFmpeg's log to
// spdlog; shared by decode/, encode/ and pipeline/.
#pragma once

#include <memory>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "common/error.hpp"

namespace vf {

std::string av_error_string(int err);

// Throws Error(category) "what: <FFmpeg's message>" when err < 0; returns err otherwise.
int av_check(int err, ErrorCategory category, const std::string& what);
#define VF_AV_CHECK(expr, category, what) ::vf::av_check((expr), (category), (what))

struct AvFrameDeleter { void operator()(AVFrame* f) const { av_frame_free(&f); } };
struct AvPacketDeleter { void operator()(AVPacket* p) const { av_packet_free(&p); } };
struct AvCodecContextDeleter { void operator()(AVCodecContext* c) const { avcodec_free_context(&c); } };
struct AvInputDeleter { void operator()(AVFormatContext* c) const { avformat_close_input(&c); } };
struct SwsDeleter { void operator()(SwsContext* s) const { sws_freeContext(s); } };
struct AvDictDeleter { void operator()(AVDictionary* d) const { av_dict_free(&d); } };

using AvFramePtr = std::unique_ptr<AVFrame, AvFrameDeleter>;
using AvPacketPtr = std::unique_ptr<AVPacket, AvPacketDeleter>;
using AvCodecContextPtr = std::unique_ptr<AVCodecContext, AvCodecContextDeleter>;
using AvInputPtr = std::unique_ptr<AVFormatContext, AvInputDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

AvFramePtr make_frame();
AvPacketPtr make_packet();

// `frame` itself, or where it lives on a device (NVDEC, CUDA) a copy of it in host memory, kept
// in `holder`. Throws Error(Internal) naming `what` when the download fails.
const AVFrame* host_frame(const AVFrame& frame, AvFramePtr& holder, const std::string& what);

// Pixel formats the filters run on directly; anything else is converted once on input.
bool is_native_format(AVPixelFormat f);
// The native format an unsupported input is converted to (keeps depth and chroma resolution
// as far as the native list allows; RGB stays RGB: packed RGB becomes its planes, exactly).
AVPixelFormat native_format_for(AVPixelFormat f);

// Routes FFmpeg's own log messages into spdlog, at the level that matches the verbosity of
// setup_logging (common/logging.hpp): -1 errors only, 0 warnings, 1 information, 2 debug.
void route_ffmpeg_logs_to_spdlog(int verbosity);

// Drops FFmpeg's log messages from this thread while alive: for probes whose failure is expected
// and reported by vfilter in one line of its own (opening NVENC on a GPU without it).
class QuietFfmpegLogs {
public:
    QuietFfmpegLogs();
    ~QuietFfmpegLogs();
    QuietFfmpegLogs(const QuietFfmpegLogs&) = delete;
    QuietFfmpegLogs& operator=(const QuietFfmpegLogs&) = delete;
};

// Converts frames to one format and size, reusing its context and buffers.
class FrameConverter {
public:
    // Writes src converted into dst (allocating dst's buffers at the first call). Between two
    // layouts of the same RGB samples (rgb24 and gbrp, say) the samples are moved, not converted.
    void convert(const AVFrame* src, AVFrame* dst, int width, int height, AVPixelFormat format);

private:
    SwsPtr sws_;
};

}  // namespace vf
