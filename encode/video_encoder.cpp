#include "encode/video_encoder.hpp"

#include "media/rgb_planes.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

extern "C" {
#include <libavutil/opt.h>
}

namespace vf {
namespace {

bool is_x26x_preset(const std::string& name) {
    for (const char* p : {"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"})
        if (name == p) return true;
    return false;
}

int64_t parse_bitrate(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    double mult = 1;
    if (end && (*end == 'k' || *end == 'K')) mult = 1e3, ++end;
    else if (end && (*end == 'm' || *end == 'M')) mult = 1e6, ++end;
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0 || v * mult > 1e10)
        fail(ErrorCategory::Usage, "--bitrate '" + s + "': expected a positive number with optional k or M, e.g. 4M");
    return static_cast<int64_t>(v * mult);
}

bool encodes(const AVCodec* codec, AVPixelFormat format) {
    if (!codec->pix_fmts) return true;
    for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
        if (*p == format) return true;
    return false;
}

// The input's own format where the encoder takes it (rgb24 that was filtered as gbrp planes), then
// the frames' format, else the encoder's nearest to the input's, as ffmpeg picks it; the frames
// are converted to it once, at the output (output_file.cpp).
AVPixelFormat encoder_pixel_format(const AVCodec* codec, const VideoInfo& video) {
    const AVPixelFormat own = video.stored_format != AV_PIX_FMT_NONE ? video.stored_format : video.format;
    if (encodes(codec, own)) return own;
    if (encodes(codec, video.format)) return video.format;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(own);
    const int alpha = d && (d->flags & AV_PIX_FMT_FLAG_ALPHA) ? 1 : 0;  // kept where the encoder can: ffmpeg's choice too
    const AVPixelFormat chosen = avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, own, alpha, nullptr);
    if (is_rgb_format(own) && !is_rgb_format(chosen))
        spdlog::info("{} cannot encode RGB; the frames, filtered as {}, are converted once to {} for it", codec->name,
                     av_get_pix_fmt_name(video.format), av_get_pix_fmt_name(chosen));
    else
        spdlog::info("{} cannot encode {}; frames are converted to {}", codec->name, av_get_pix_fmt_name(own), av_get_pix_fmt_name(chosen));
    return chosen;
}

// Sets the encoder up for `codec` and opens it; returns FFmpeg's error code.
int open_encoder(const AVCodec* codec, const OutputOptions& options, const VideoInfo& video, bool global_header,
                 AvCodecContextPtr& encoder) {
    encoder.reset(avcodec_alloc_context3(codec));
    if (!encoder) fail(ErrorCategory::Internal, "out of memory creating an encoder");
    AVCodecContext* enc = encoder.get();
    enc->width = video.width;
    enc->height = video.height;
    enc->pix_fmt = encoder_pixel_format(codec, video);
    // Keep the source's time base so timestamps pass through exactly, or take ffmpeg's, 1/frame
    // rate (timestamps rounded to it), when asked; MPEG-4 part 2 cannot store time bases with
    // denominators above 65535, so it gets 1/frame rate.
    enc->time_base = options.time_base_from_frame_rate ? av_inv_q(video.frame_rate) : video.time_base;
    if (codec->id == AV_CODEC_ID_MPEG4 && enc->time_base.den > 65535) enc->time_base = av_inv_q(video.frame_rate);
    enc->framerate = video.frame_rate;
    enc->sample_aspect_ratio = video.sample_aspect_ratio;
    enc->color_range = video.color_range;
    enc->colorspace = video.colorspace;
    enc->color_primaries = video.color_primaries;
    enc->color_trc = video.color_trc;
    enc->chroma_sample_location = video.chroma_location;
    // RGB converted to YUV (libx264, say) is no longer RGB: its colour matrix is swscale's default.
    if (is_rgb_format(video.format) && !is_rgb_format(enc->pix_fmt) && enc->colorspace == AVCOL_SPC_RGB)
        enc->colorspace = AVCOL_SPC_UNSPECIFIED;
    enc->thread_count = options.encoder_threads;
    if (global_header) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (options.bitexact) enc->flags |= AV_CODEC_FLAG_BITEXACT;
    // Live: a keyframe every 2 s, so fragments stay short and a viewer joining can start soon.
    if (options.live) enc->gop_size = std::max(1, static_cast<int>(std::lround(2 * av_q2d(video.frame_rate))));
    if (options.low_latency) enc->max_b_frames = 0;

    const bool nvenc = std::strstr(codec->name, "_nvenc") != nullptr;
    const bool x26x = !nvenc && (codec->id == AV_CODEC_ID_H264 || codec->id == AV_CODEC_ID_HEVC);
    // x264 and x265 accept any preset string here and only refuse it when opening.
    if (x26x && !options.preset.empty() &&
        (!is_x26x_preset(options.preset) || av_opt_set(enc->priv_data, "preset", options.preset.c_str(), 0) < 0))
        fail(ErrorCategory::Usage, "--preset '" + options.preset + "' is not a preset of " + codec->name +
                                       " (ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo)");
    // Low latency: no B-frames, no look-ahead, no frame threading (each frame leaves as it arrives).
    if (x26x && options.low_latency) av_opt_set(enc->priv_data, "tune", "zerolatency", 0);
    if (nvenc && options.low_latency) {
        av_opt_set(enc->priv_data, "zerolatency", "1", 0);
        av_opt_set(enc->priv_data, "delay", "0", 0);
    }
    if (nvenc) av_opt_set_int(enc->priv_data, "gpu", options.gpu, 0);  // the stream's GPU, not FFmpeg's first
    // NVENC names its presets p1 (fastest) .. p7; x264 names such as veryfast mean its default p4.
    if (nvenc && options.preset.size() == 2 && options.preset[0] == 'p')
        av_opt_set(enc->priv_data, "preset", options.preset.c_str(), 0);
    if (!options.bitrate.empty()) {
        enc->bit_rate = parse_bitrate(options.bitrate);
    } else if (nvenc) {
        av_opt_set(enc->priv_data, "rc", "vbr", 0);  // constant quality, as close to crf as NVENC gets
        av_opt_set_double(enc->priv_data, "cq", options.crf.value_or(23.0), 0);
    } else if (x26x) {
        av_opt_set_double(enc->priv_data, "crf", options.crf.value_or(23.0), 0);
    } else if (codec->id == AV_CODEC_ID_MPEG4 || codec->id == AV_CODEC_ID_MPEG2VIDEO) {
        enc->flags |= AV_CODEC_FLAG_QSCALE;  // constant quality instead of the 200 kb/s default
        enc->global_quality = FF_QP2LAMBDA * static_cast<int>(options.crf.value_or(3.0));
    }
    return avcodec_open2(enc, codec, nullptr);
}

}  // namespace

const AVCodec* find_video_encoder(const std::string& name) {
    static const std::map<std::string, std::string> aliases = {
        {"h264", "libx264"}, {"x264", "libx264"}, {"avc", "libx264"}, {"hevc", "libx265"},
        {"h265", "libx265"}, {"x265", "libx265"}, {"raw", "rawvideo"}, {"auto", "libx264"}};
    const auto it = aliases.find(name);
    const std::string real = it == aliases.end() ? name : it->second;
    const AVCodec* c = avcodec_find_encoder_by_name(real.c_str());
    if (!c || c->type != AVMEDIA_TYPE_VIDEO)
        fail(ErrorCategory::Usage, "unknown video codec '" + name +
                                       "'; try libx264, libx265, mpeg4, ffv1 or rawvideo (ffmpeg -encoders lists all)");
    return c;
}

AvCodecContextPtr open_video_encoder(const OutputOptions& options, const VideoInfo& video, bool global_header) {
    AvCodecContextPtr encoder;
    // auto: NVENC when filtering on the GPU and this GPU has it (H100/H200 do not), else libx264.
    if (options.codec == "auto") {
        const AVCodec* nv = options.prefer_nvenc ? avcodec_find_encoder_by_name("h264_nvenc") : nullptr;
        int err = AVERROR_ENCODER_NOT_FOUND;
        if (nv) {
            QuietFfmpegLogs quiet;  // NVENC's own complaints would be two more lines for one fact
            err = open_encoder(nv, options, video, global_header, encoder);
        }
        if (err < 0) {
            if (options.prefer_nvenc) {
                spdlog::info("{}; encoding with libx264 on the CPU",
                             nv ? "this GPU has no usable NVENC" : "this FFmpeg has no h264_nvenc");
                if (nv) spdlog::debug("h264_nvenc: {}", av_error_string(err));
            }
            const AVCodec* x264 = find_video_encoder("libx264");
            const int e2 = open_encoder(x264, options, video, global_header, encoder);
            if (e2 < 0) fail(ErrorCategory::Output, "cannot open the libx264 encoder: " + av_error_string(e2));
        }
    } else {
        const AVCodec* codec = find_video_encoder(options.codec);
        const int err = open_encoder(codec, options, video, global_header, encoder);
        if (err < 0 && std::strstr(codec->name, "_nvenc"))
            fail(ErrorCategory::Device, std::string("cannot open the ") + codec->name + " encoder: " + av_error_string(err) +
                                            " (this machine has no usable NVENC; use --codec auto or libx264)");
        if (err < 0) fail(ErrorCategory::Output, std::string("cannot open the ") + codec->name + " encoder: " + av_error_string(err));
    }
    return encoder;
}

}  // namespace vf
