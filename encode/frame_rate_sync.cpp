#include "encode/frame_rate_sync.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

extern "C" {
#include <libavutil/common.h>
}

namespace vf {

VideoSync default_video_sync(const AVOutputFormat* format, bool single_stream_input) {
    if (!format) return VideoSync::Passthrough;
    if (std::string(format->name) == "avi") return VideoSync::Vfr;
    if (format->flags & AVFMT_VARIABLE_FPS) return (format->flags & AVFMT_NOTIMESTAMPS) ? VideoSync::Passthrough : VideoSync::Vfr;
    return single_stream_input ? VideoSync::VsCfr : VideoSync::Cfr;
}

FrameRateSync::FrameRateSync(VideoSync sync, AVRational rate, AVRational frame_rate, AVRational time_base, int64_t max_frames,
                             bool filtered, int64_t duration_us)
    : sync_(sync), rate_(rate), frame_rate_(frame_rate), time_base_(time_base),
      max_frames_(max_frames > 0 ? max_frames : std::numeric_limits<int64_t>::max()), filtered_(filtered),
      duration_us_(duration_us) {}

std::vector<FrameRateSync::Copy> FrameRateSync::place(int64_t pts, int64_t frame_duration) {
    const AVRational enc_tb = output_time_base();
    // ffmpeg's adjust_frame_pts_to_encoder_tb: the time in the output's time base, with extra
    // precision, nudged off exact midpoints.
    double sync_ipts = static_cast<double>(sync_opts_);
    if (pts != AV_NOPTS_VALUE) {
        AVRational fine = enc_tb;
        const int extra_bits = av_clip(29 - av_log2(static_cast<unsigned>(fine.den)), 0, 16);
        fine.den <<= extra_bits;
        sync_ipts = static_cast<double>(av_rescale_q(pts, time_base_, fine)) / (1 << extra_bits);
        sync_ipts += FFSIGN(sync_ipts) * 1.0 / (1 << 17);
    }
    double duration = 0;
    if (frame_rate_.num > 0 && frame_rate_.den > 0) duration = 1 / (av_q2d(frame_rate_) * av_q2d(enc_tb));
    duration = std::min(duration, 1 / (av_q2d(rate_) * av_q2d(enc_tb)));
    if (!filtered_ && frame_duration > 0) {
        const long d = std::lrint(static_cast<float>(frame_duration * av_q2d(time_base_) / av_q2d(enc_tb)));
        if (d > 0) duration = static_cast<double>(d);
    }
    double delta0 = sync_ipts - static_cast<double>(sync_opts_);
    double delta = delta0 + duration;
    int64_t nb0_frames = 0, nb_frames = 1;
    if (delta0 < 0 && delta > 0 && sync_ != VideoSync::Passthrough) {
        sync_ipts = static_cast<double>(sync_opts_);
        duration += delta0;
        delta0 = 0;
    }
    switch (sync_) {
    case VideoSync::VsCfr:
        if (frame_number_ == 0 && delta0 >= 0.5) {
            delta = duration;
            delta0 = 0;
            sync_opts_ = std::llrint(sync_ipts);
        }
        [[fallthrough]];
    case VideoSync::Cfr:
        if (delta < -1.1) {
            nb_frames = 0;
        } else if (delta > 1.1) {
            nb_frames = std::llrint(static_cast<float>(delta));
            if (delta0 > 1.1) nb0_frames = std::llrint(static_cast<float>(delta0 - 0.6));
        }
        break;
    case VideoSync::Vfr:
        if (delta <= -0.6) nb_frames = 0;
        else if (delta > 0.6) sync_opts_ = std::llrint(sync_ipts);
        break;
    case VideoSync::Passthrough:
        sync_opts_ = std::llrint(sync_ipts);
        break;
    }
    return emit(nb_frames, nb0_frames, true);
}

std::vector<FrameRateSync::Copy> FrameRateSync::flush() {
    // ffmpeg repeats the last frame as often as the middle of the last three frames' repeats.
    const int64_t n = std::max(std::min(last_nb0_[0], last_nb0_[1]), std::min(std::max(last_nb0_[0], last_nb0_[1]), last_nb0_[2]));
    return emit(n, n, false);
}

std::vector<FrameRateSync::Copy> FrameRateSync::emit(int64_t nb_frames, int64_t nb0_frames, bool have_current) {
    nb_frames = std::min(nb_frames, max_frames_ - frame_number_);
    nb0_frames = std::min(nb0_frames, nb_frames);
    last_nb0_[2] = last_nb0_[1];
    last_nb0_[1] = last_nb0_[0];
    last_nb0_[0] = nb0_frames;
    std::vector<Copy> copies;
    for (int64_t i = 0; i < nb_frames; ++i) {
        const bool previous = i < nb0_frames && have_previous_;
        if (!previous && !have_current) break;
        if (duration_us_ > 0 && av_compare_ts(sync_opts_, output_time_base(), duration_us_, AV_TIME_BASE_Q) >= 0) closed_ = true;
        if (closed_) break;
        copies.push_back({previous, sync_opts_++});
        ++frame_number_;
    }
    if (have_current) have_previous_ = true;
    return copies;
}

}  // namespace vf
