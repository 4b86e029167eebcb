#include "media/av_helpers.hpp"

#include "media/rgb_planes.hpp"

#include <spdlog/spdlog.h>

#include <cstdarg>
#include <cstdio>

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf {

std::string av_error_string(int err) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(err, buf, sizeof(buf));
    return buf;
}

int av_check(int err, ErrorCategory category, const std::string& what) {
    if (err < 0) throw Error(category, what + ": " + av_error_string(err));
    return err;
}

const AVFrame* host_frame(const AVFrame& frame, AvFramePtr& holder, const std::string& what) {
    if (!frame.hw_frames_ctx) return &frame;
    holder = make_frame();
    av_check(av_hwframe_transfer_data(holder.get(), &frame, 0), ErrorCategory::Internal, what + ": downloading the frame");
    av_check(av_frame_copy_props(holder.get(), &frame), ErrorCategory::Internal, what + ": copying frame properties");
    return holder.get();
}

AvFramePtr make_frame() {
    AvFramePtr f(av_frame_alloc());
    if (!f) throw Error(ErrorCategory::Internal, "out of memory allocating a frame");
    return f;
}

AvPacketPtr make_packet() {
    AvPacketPtr p(av_packet_alloc());
    if (!p) throw Error(ErrorCategory::Internal, "out of memory allocating a packet");
    return p;
}

bool is_native_format(AVPixelFormat f) {
    switch (f) {
    case AV_PIX_FMT_YUV420P: case AV_PIX_FMT_YUV422P: case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUVJ420P: case AV_PIX_FMT_YUVJ422P: case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_NV12: case AV_PIX_FMT_GRAY8:
    case AV_PIX_FMT_YUV420P10LE: case AV_PIX_FMT_YUV422P10LE: case AV_PIX_FMT_YUV444P10LE:
    case AV_PIX_FMT_P010LE: case AV_PIX_FMT_GRAY10LE:
    case AV_PIX_FMT_GBRP: case AV_PIX_FMT_GBRAP:
    case AV_PIX_FMT_GBRP10LE: case AV_PIX_FMT_GBRP12LE: case AV_PIX_FMT_GBRP16LE:
    case AV_PIX_FMT_GBRAP10LE: case AV_PIX_FMT_GBRAP12LE: case AV_PIX_FMT_GBRAP16LE:
        return true;
    default:
        return false;
    }
}

namespace {

// RGB stays RGB: packed layouts as their planes (exact), other depths at the next planar one.
AVPixelFormat native_rgb_for(AVPixelFormat f, const AVPixFmtDescriptor* d) {
    const AVPixelFormat planes = planar_rgb_for_packed(f);
    if (planes != AV_PIX_FMT_NONE) return planes;
    const bool alpha = d->flags & AV_PIX_FMT_FLAG_ALPHA;
    const int depth = d->comp[0].depth;
    if (depth <= 8) return alpha ? AV_PIX_FMT_GBRAP : AV_PIX_FMT_GBRP;
    if (depth <= 10) return alpha ? AV_PIX_FMT_GBRAP10LE : AV_PIX_FMT_GBRP10LE;
    if (depth <= 12) return alpha ? AV_PIX_FMT_GBRAP12LE : AV_PIX_FMT_GBRP12LE;
    return alpha ? AV_PIX_FMT_GBRAP16LE : AV_PIX_FMT_GBRP16LE;
}

}  // namespace

AVPixelFormat native_format_for(AVPixelFormat f) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
    if (!d) return AV_PIX_FMT_YUV420P;
    const bool deep = d->comp[0].depth > 8;
    if (d->flags & AV_PIX_FMT_FLAG_RGB) return native_rgb_for(f, d);
    if (d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB) && !(d->flags & AV_PIX_FMT_FLAG_PAL))
        return deep ? AV_PIX_FMT_GRAY10LE : AV_PIX_FMT_GRAY8;
    const bool full_chroma = d->log2_chroma_w == 0 && d->log2_chroma_h == 0;
    if (full_chroma) return deep ? AV_PIX_FMT_YUV444P10LE : AV_PIX_FMT_YUV444P;
    if (d->log2_chroma_h == 0) return deep ? AV_PIX_FMT_YUV422P10LE : AV_PIX_FMT_YUV422P;
    return deep ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
}

namespace {
thread_local int quiet_depth = 0;

void ffmpeg_log(void* avcl, int level, const char* fmt, va_list vl) {
    if (level > av_log_get_level() || quiet_depth > 0) return;
    static thread_local std::string pending;  // process-wide: each thread's part of a log line
    static thread_local int print_prefix = 1;
    char line[1024];
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof(line), &print_prefix);
    pending += line;
    if (pending.empty() || pending.back() != '\n') return;  // FFmpeg builds lines in pieces
    pending.pop_back();
    const std::string msg = "ffmpeg: " + pending;
    pending.clear();
    if (level <= AV_LOG_ERROR) spdlog::warn("{}", msg);  // vfilter reports the failure itself
    else if (level <= AV_LOG_WARNING) spdlog::warn("{}", msg);
    else if (level <= AV_LOG_INFO) spdlog::debug("{}", msg);
    else spdlog::trace("{}", msg);
}
}  // namespace

void route_ffmpeg_logs_to_spdlog(int verbosity) {
    int level = AV_LOG_WARNING;
    if (verbosity < 0) level = AV_LOG_ERROR;
    if (verbosity == 1) level = AV_LOG_INFO;
    if (verbosity >= 2) level = AV_LOG_DEBUG;
    av_log_set_level(level);
    av_log_set_callback(ffmpeg_log);
}

namespace {

void allocate_once(AVFrame* dst, int width, int height, AVPixelFormat format) {
    if (dst->data[0]) return;
    dst->width = width;
    dst->height = height;
    dst->format = format;
    VF_AV_CHECK(av_frame_get_buffer(dst, 0), ErrorCategory::Internal, "allocating a converted frame");
}

}  // namespace

QuietFfmpegLogs::QuietFfmpegLogs() { ++quiet_depth; }
QuietFfmpegLogs::~QuietFfmpegLogs() { --quiet_depth; }

void FrameConverter::convert(const AVFrame* src, AVFrame* dst, int width, int height, AVPixelFormat format) {
    if (src->width == width && src->height == height && rgb_repackable(static_cast<AVPixelFormat>(src->format), format)) {
        allocate_once(dst, width, height, format);
        VF_AV_CHECK(av_frame_copy_props(dst, src), ErrorCategory::Internal, "copying frame properties");
        repack_rgb(src, dst);
        return;
    }
    sws_.reset(sws_getCachedContext(sws_.release(), src->width, src->height, static_cast<AVPixelFormat>(src->format),
                                    width, height, format, SWS_BICUBIC, nullptr, nullptr, nullptr));
    if (!sws_) throw Error(ErrorCategory::Input, std::string("cannot convert from ") +
                                                     av_get_pix_fmt_name(static_cast<AVPixelFormat>(src->format)));
    allocate_once(dst, width, height, format);
    VF_AV_CHECK(av_frame_copy_props(dst, src), ErrorCategory::Internal, "copying frame properties");
    sws_scale(sws_.get(), src->data, src->linesize, 0, src->height, dst->data, dst->linesize);
}

}  // namespace vf
