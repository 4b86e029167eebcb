#include "decode/input_open.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>

#include "media/protocols.hpp"

#include <spdlog/spdlog.h>

namespace vf {

double input_timeout(const std::string& url, double timeout_s) {
    if (timeout_s >= 0) return timeout_s;
    const std::string proto = input_protocol(url);
    return (proto == "file" || proto == "pipe") && !is_capture_device(url) ? 0 : kDefaultNetworkTimeoutS;
}

std::string silent_message(const std::string& url, double timeout_s, const char* doing) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeout_s);
    return "input '" + url + "' sent nothing for " + buf + " s while " + doing + " (--timeout); is the source alive?";
}

AvInputPtr open_demuxer(const std::string& input, const LiveInputOptions& live, const std::string& allowed_protocols,
                        IoWatchdog& watchdog, const AVCodec* video_decoder) {
    std::string device;
    const bool capture = is_capture_device(input, &device);
    const std::string url = input == "-" ? "pipe:0" : capture ? device : input;
    const AVInputFormat* demuxer = nullptr;
    AVDictionary* open_options = live_open_options(input, live, &demuxer);
    AVFormatContext* ctx = avformat_alloc_context();
    if (!ctx) {
        av_dict_free(&open_options);
        fail(ErrorCategory::Internal, "out of memory opening an input");
    }
    ctx->interrupt_callback = watchdog.callback();
    if (video_decoder) {  // the demuxer labels its streams with it, and probing decodes with it
        ctx->video_codec_id = video_decoder->id;
        ctx->video_codec = video_decoder;
    }
    try {
        av_dict_set(&open_options, "protocol_whitelist",
                    protocol_whitelist(capture ? device : input, allowed_protocols).c_str(), 0);
    } catch (...) {
        av_dict_free(&open_options);
        avformat_free_context(ctx);
        throw;
    }
    watchdog.arm();
    int err = avformat_open_input(&ctx, url.c_str(), demuxer, &open_options);  // frees ctx on failure
    av_dict_free(&open_options);
    if (err < 0) {
        // Whether trying again can help (serve waits for a camera that is off, booting or
        // unreachable): refused credentials, a path the server does not have and a malformed
        // address will not mend.
        if (watchdog.expired()) fail(ErrorCategory::Input, silent_message(input, watchdog.timeout_s(), "opening"));
        if (err == AVERROR_HTTP_UNAUTHORIZED || err == AVERROR_HTTP_FORBIDDEN)
            fail_lasting(ErrorCategory::Input, "input '" + input + "' refused the credentials (" + av_error_string(err) +
                                                   "): check the user and password in the address");
        if (err == AVERROR_HTTP_NOT_FOUND)
            fail_lasting(ErrorCategory::Input,
                         "input '" + input + "': the server has no such stream (" + av_error_string(err) + "): check the path");
        if (err == AVERROR_PROTOCOL_NOT_FOUND || err == AVERROR(EINVAL))
            fail_lasting(ErrorCategory::Input, "input '" + input + "' is not an address FFmpeg can open (" + av_error_string(err) + ")");
        if (err == AVERROR_INVALIDDATA)
            fail(ErrorCategory::Input, "input '" + input + "' is not a media file FFmpeg can read");
        fail(ErrorCategory::Input, "cannot open input '" + input + "': " + av_error_string(err));
    }
    AvInputPtr format(ctx);
    watchdog.arm();
    err = avformat_find_stream_info(ctx, nullptr);
    if (err < 0 && watchdog.expired()) fail(ErrorCategory::Input, silent_message(input, watchdog.timeout_s(), "probing"));
    if (err < 0) fail(ErrorCategory::Input, "cannot read the streams of '" + input + "': " + av_error_string(err));
    return format;
}

void seek_input(AVFormatContext* ctx, double seek_s, const std::string& url) {
    int64_t ts = std::llround(seek_s * AV_TIME_BASE);
    if (ctx->start_time != AV_NOPTS_VALUE) ts += ctx->start_time;
    if (avformat_seek_file(ctx, -1, INT64_MIN, ts, ts, 0) < 0)
        spdlog::warn("'{}' could not seek to {:.3f} s: reading from its start", url, seek_s);
}

VideoInfo describe_video_stream(const AVFormatContext* ctx, const AVStream* st) {
    auto* c = const_cast<AVFormatContext*>(ctx);
    auto* s = const_cast<AVStream*>(st);
    VideoInfo info;
    info.width = st->codecpar->width;
    info.height = st->codecpar->height;
    info.time_base = st->time_base;
    info.frame_rate = av_guess_frame_rate(c, s, nullptr);
    if (info.frame_rate.num <= 0 || info.frame_rate.den <= 0) info.frame_rate = {25, 1};
    info.sample_aspect_ratio = av_guess_sample_aspect_ratio(c, s, nullptr);
    info.color_range = st->codecpar->color_range;
    info.colorspace = st->codecpar->color_space;
    info.color_primaries = st->codecpar->color_primaries;
    info.color_trc = st->codecpar->color_trc;
    info.chroma_location = st->codecpar->chroma_location;
    info.input_streams = static_cast<int>(ctx->nb_streams);
    if (ctx->start_time != AV_NOPTS_VALUE) info.start_s = ctx->start_time / static_cast<double>(AV_TIME_BASE);
    if (st->duration > 0) info.duration_s = st->duration * av_q2d(st->time_base);
    else if (ctx->duration > 0) info.duration_s = ctx->duration / static_cast<double>(AV_TIME_BASE);
    info.expected_frames = st->nb_frames;
    if (info.expected_frames <= 0 && info.duration_s > 0)
        info.expected_frames = static_cast<int64_t>(std::llround(info.duration_s * av_q2d(info.frame_rate)));
    return info;
}

}  // namespace vf
