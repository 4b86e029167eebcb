#include "encode/converting_sink.hpp"

#include <cmath>

#include "common/error.hpp"

extern "C" {
#include <libavutil/opt.h>
}

namespace vf {
namespace {

// ffmpeg's scale filter's flags: `text` evaluated from none, as libavfilter/vf_scale.c does (on a
// context of its own: an error is logged through it).
int64_t swscale_flags(const std::string& text) {
    SwsPtr s(sws_alloc_context());
    int64_t flags = 0;
    if (!s || av_opt_set_int(s.get(), "sws_flags", 0, 0) < 0 || av_opt_set(s.get(), "sws_flags", text.c_str(), 0) < 0 ||
        av_opt_get_int(s.get(), "sws_flags", 0, &flags) < 0)
        fail(ErrorCategory::Usage, "-sws_flags " + text + ": not libswscale flags (e.g. bicubic, lanczos+accurate_rnd)");
    return flags;
}

// A libswscale context set up as libavfilter/vf_scale.c sets up one for a progressive frame of
// the same pixel format.
SwsPtr make_scaler(const VideoInfo& from, int width, int height, const std::string& flags) {
    SwsPtr s(sws_alloc_context());
    if (!s) fail(ErrorCategory::Internal, "out of memory making a scaler");
    av_opt_set_int(s.get(), "srcw", from.width, 0);
    av_opt_set_int(s.get(), "srch", from.height, 0);
    av_opt_set_int(s.get(), "src_format", from.format, 0);
    av_opt_set_int(s.get(), "dstw", width, 0);
    av_opt_set_int(s.get(), "dsth", height, 0);
    av_opt_set_int(s.get(), "dst_format", from.format, 0);
    av_opt_set_int(s.get(), "sws_flags", swscale_flags(flags), 0);
    if (from.color_range == AVCOL_RANGE_JPEG) av_opt_set_int(s.get(), "src_range", 1, 0);
    // MPEG-2's chroma siting for yuv420p, by ffmpeg's convention.
    const int v_chroma = from.format == AV_PIX_FMT_YUV420P ? 128 : -513;
    av_opt_set_int(s.get(), "src_h_chr_pos", -513, 0);
    av_opt_set_int(s.get(), "src_v_chr_pos", v_chroma, 0);
    av_opt_set_int(s.get(), "dst_h_chr_pos", -513, 0);
    av_opt_set_int(s.get(), "dst_v_chr_pos", v_chroma, 0);
    if (sws_init_context(s.get(), nullptr, nullptr) < 0)
        fail(ErrorCategory::Usage, "-s " + std::to_string(width) + "x" + std::to_string(height) + ": libswscale cannot scale " +
                                       av_get_pix_fmt_name(from.format) + " to it");
    return s;
}

}  // namespace

VideoInfo converted_info(const VideoInfo& video, const OutputConversion& c) {
    VideoInfo v = video;
    if (c.width > 0) {
        v.width = c.width;
        v.height = c.height;
        if (video.sample_aspect_ratio.num)  // vf_scale: the picture keeps its shape
            v.sample_aspect_ratio = av_mul_q(AVRational{c.height * video.width, c.width * video.height}, video.sample_aspect_ratio);
    }
    if (c.rate.num > 0) {
        v.time_base = av_inv_q(c.rate);
        v.frame_rate = c.rate;
        if (v.duration_s > 0) v.expected_frames = static_cast<int64_t>(std::llround(v.duration_s * av_q2d(c.rate)));
    }
    return v;
}

ConvertingSink::ConvertingSink(std::unique_ptr<Sink> inner, const VideoInfo& video, const OutputConversion& conversion)
    : inner_(std::move(inner)), video_(video), conversion_(conversion) {
    if (conversion.width > 0) {
        sws_ = make_scaler(video, conversion.width, conversion.height, conversion.scale_flags);
        pool_ = std::make_unique<FramePool>(conversion.width, conversion.height, video.format);
    }
    if (conversion.rate.num > 0)
        sync_.emplace(conversion.sync, conversion.rate, video.frame_rate, video.time_base, conversion.max_frames, conversion.filtered,
                      std::llround(conversion.duration_s * AV_TIME_BASE));
}

ConvertingSink::~ConvertingSink() = default;

AvFramePtr ConvertingSink::scaled(const AVFrame* frame) {
    if (!sws_) {
        AvFramePtr ref(av_frame_clone(frame));
        if (!ref) fail(ErrorCategory::Internal, "out of memory referencing a frame");
        return ref;
    }
    AvFramePtr out = pool_->get();
    VF_AV_CHECK(av_frame_copy_props(out.get(), frame), ErrorCategory::Internal, "copying frame properties");
    sws_scale(sws_.get(), frame->data, frame->linesize, 0, frame->height, out->data, out->linesize);
    out->sample_aspect_ratio = converted_info(video_, conversion_).sample_aspect_ratio;
    return out;
}

void ConvertingSink::write_copy(const AVFrame* frame, int64_t pts, Clock::time_point read_at) {
    AvFramePtr copy(av_frame_clone(frame));
    if (!copy) fail(ErrorCategory::Internal, "out of memory referencing a frame");
    copy->pts = pts;
    inner_->write_frame(copy.get(), read_at);
    latency_.add(read_at);
}

void ConvertingSink::write_frame(const AVFrame* frame, Clock::time_point read_at) {
    AvFramePtr current = scaled(frame);
    if (!sync_) {
        write_copy(current.get(), current->pts, read_at);
        return;
    }
    for (const FrameRateSync::Copy& c : sync_->place(frame->pts, frame->pkt_duration))
        write_copy(c.previous ? previous_.get() : current.get(), c.pts, c.previous ? previous_read_at_ : read_at);
    previous_ = std::move(current);
    previous_read_at_ = read_at;
}

void ConvertingSink::finish() {
    if (sync_ && previous_)
        for (const FrameRateSync::Copy& c : sync_->flush()) write_copy(previous_.get(), c.pts, previous_read_at_);
    inner_->finish();
}

std::string ConvertingSink::describe() const {
    std::string what;
    if (conversion_.width > 0) what += "scaled to " + std::to_string(conversion_.width) + "x" + std::to_string(conversion_.height);
    if (conversion_.rate.num > 0)
        what += (what.empty() ? "" : ", ") + std::string("at ") + std::to_string(conversion_.rate.num) +
                (conversion_.rate.den != 1 ? "/" + std::to_string(conversion_.rate.den) : "") + " fps";
    return inner_->describe() + " (" + what + ")";
}

}  // namespace vf
