#include "encode/jpeg_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "common/error.hpp"

namespace vf {
namespace {

int even_at_least_16(double v) { return std::max(16, static_cast<int>(std::lround(v / 2)) * 2); }

// The yuvj formats are their yuv twins marked full range (swscale warns about them by name).
AVPixelFormat without_j(AVPixelFormat f, bool* full) {
    switch (f) {
    case AV_PIX_FMT_YUVJ420P: *full = true; return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: *full = true; return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: *full = true; return AV_PIX_FMT_YUV444P;
    default: return f;
    }
}

// Limited-range samples (16..235, chroma 16..240) stretched to JPEG's full range, in place. Done
// here rather than by swscale, whose unscaled and high-depth paths skip range conversion.
void expand_to_full_range(AVFrame& f) {
    uint8_t luma[256], chroma[256];
    for (int v = 0; v < 256; ++v) {
        luma[v] = static_cast<uint8_t>(std::clamp(std::lround((v - 16) * 255.0 / 219), 0L, 255L));
        chroma[v] = static_cast<uint8_t>(std::clamp(std::lround((v - 128) * 255.0 / 224 + 128), 0L, 255L));
    }
    for (int p = 0; p < 3; ++p) {
        const int h = p == 0 ? f.height : (f.height + 1) / 2, w = p == 0 ? f.width : (f.width + 1) / 2;
        const uint8_t* lut = p == 0 ? luma : chroma;
        for (int y = 0; y < h; ++y) {
            uint8_t* row = f.data[p] + static_cast<ptrdiff_t>(y) * f.linesize[p];
            for (int x = 0; x < w; ++x) row[x] = lut[row[x]];
        }
    }
}

}  // namespace

JpegSize jpeg_size(int width, int height, AVRational sar, int asked_width) {
    const double aspect = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1.0;
    const double display_width = width * aspect;
    const int w = even_at_least_16(std::min<double>(std::max(asked_width, 16), display_width));
    return {w, even_at_least_16(static_cast<double>(w) * height / display_width)};
}

std::string encode_jpeg(const AVFrame& in, int width, int quality) {
    AvFramePtr downloaded;
    const AVFrame* frame = host_frame(in, downloaded, "preview picture");
    if (frame->width <= 0 || frame->height <= 0 || frame->format < 0 || !sws_isSupportedInput(static_cast<AVPixelFormat>(frame->format)))
        fail(ErrorCategory::Internal, "preview picture: frames of this format or size cannot be shown");
    const JpegSize size = jpeg_size(frame->width, frame->height, frame->sample_aspect_ratio, width);
    bool full = frame->color_range == AVCOL_RANGE_JPEG;
    const AVPixelFormat format = without_j(static_cast<AVPixelFormat>(frame->format), &full);
    // Grey frames are full range unless marked otherwise (FFmpeg's reading); they are scaled as
    // grey, with neutral chroma beside them, since swscale would narrow grey to limited-range YUV.
    const bool grey = format == AV_PIX_FMT_GRAY8 || format == AV_PIX_FMT_GRAY10LE;
    if (grey) full = frame->color_range != AVCOL_RANGE_MPEG;
    // Same range in and out: swscale only scales and changes depth and layout.
    SwsPtr sws(sws_getContext(frame->width, frame->height, format, size.width, size.height,
                              grey ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV420P, SWS_AREA, nullptr, nullptr, nullptr));
    if (!sws) fail(ErrorCategory::Internal, "preview picture: cannot convert frames of this format");

    AvFramePtr small = make_frame();
    small->format = AV_PIX_FMT_YUV420P;
    small->width = size.width;
    small->height = size.height;
    small->color_range = AVCOL_RANGE_JPEG;
    av_check(av_frame_get_buffer(small.get(), 0), ErrorCategory::Internal, "preview picture: allocating the picture");
    sws_scale(sws.get(), frame->data, frame->linesize, 0, frame->height, small->data, small->linesize);
    if (grey) {
        for (int p = 1; p < 3; ++p)
            std::memset(small->data[p], 128, static_cast<size_t>(small->linesize[p]) * ((size.height + 1) / 2));
    }
    if (!full) expand_to_full_range(*small);

    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
    if (!codec) fail(ErrorCategory::Internal, "preview picture: this FFmpeg has no MJPEG encoder");
    AvCodecContextPtr enc(avcodec_alloc_context3(codec));
    if (!enc) fail(ErrorCategory::Internal, "preview picture: out of memory");
    enc->width = size.width;
    enc->height = size.height;
    enc->pix_fmt = AV_PIX_FMT_YUV420P;
    enc->color_range = AVCOL_RANGE_JPEG;
    enc->time_base = {1, 25};
    enc->flags |= AV_CODEC_FLAG_QSCALE;
    enc->global_quality = FF_QP2LAMBDA * std::clamp(quality, 2, 31);
    enc->thread_count = 1;
    av_check(avcodec_open2(enc.get(), codec, nullptr), ErrorCategory::Internal, "preview picture: opening the MJPEG encoder");
    small->quality = enc->global_quality;
    small->pts = 0;
    av_check(avcodec_send_frame(enc.get(), small.get()), ErrorCategory::Internal, "preview picture: encoding");
    av_check(avcodec_send_frame(enc.get(), nullptr), ErrorCategory::Internal, "preview picture: encoding");
    AvPacketPtr packet = make_packet();
    av_check(avcodec_receive_packet(enc.get(), packet.get()), ErrorCategory::Internal, "preview picture: encoding");
    return std::string(reinterpret_cast<const char*>(packet->data), static_cast<size_t>(packet->size));
}

}  // namespace vf
