#include "pipeline/time_cut.hpp"

#include <cmath>

namespace vf {
namespace {

int64_t seconds_in_us(double s) { return std::llround(s * AV_TIME_BASE); }

int64_t seconds_in_ticks(double s, AVRational tb) { return av_rescale_q(seconds_in_us(s), AV_TIME_BASE_Q, tb); }

}  // namespace

TimeCut::TimeCut(const TimeWindow& window, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough)
    : window_(window), time_base_(video.time_base), passthrough_(passthrough), packets_kept_(passthrough.size(), 0) {
    input_offset_us_ = -(seconds_in_us(video.start_s) + seconds_in_us(window.input_start.value_or(0)));
    // ffmpeg's accurate seek: a trim from 0 once -ss is given; -t from the first frame kept.
    if (window.input_start) input_.start = 0;
    if (window.input_duration) input_.duration = seconds_in_ticks(*window.input_duration, time_base_);
    if (window.output_start) output_.start = seconds_in_ticks(*window.output_start, time_base_);
    if (window.output_duration) output_.duration = seconds_in_ticks(*window.output_duration, time_base_);
}

TimeCut::Verdict TimeCut::Trim::admit(int64_t pts) {
    if (start && pts < *start) return Verdict::Drop;
    if (!first) first = pts;
    if (duration && *duration > 0 && pts - *first >= *duration) return Verdict::End;
    return Verdict::Keep;
}

TimeCut::Verdict TimeCut::admit(PipelineItem& item) {
    if (auto* v = std::get_if<VideoFrame>(&item)) return admit_frame(v->frame.get());
    return admit_packet(std::get<PassthroughPacket>(item));
}

TimeCut::Verdict TimeCut::admit_frame(AVFrame* f) {
    if (f->pts == AV_NOPTS_VALUE) return Verdict::Keep;  // placed after the last one downstream
    const int64_t pts = f->pts + av_rescale_q(input_offset_us_, AV_TIME_BASE_Q, time_base_);
    for (Trim* trim : {&input_, &output_})
        if (const Verdict v = trim->admit(pts); v != Verdict::Keep) return v;
    f->pts = pts - output_.start.value_or(0);
    f->best_effort_timestamp = f->pts;
    return Verdict::Keep;
}

// Packets copied as they are (audio): the first of a stream at or after the output's start, none
// at or after the end, as ffmpeg's stream copy does (fftools/ffmpeg.c, do_streamcopy).
TimeCut::Verdict TimeCut::admit_packet(PassthroughPacket& p) {
    size_t i = 0;
    while (i < passthrough_.size() && passthrough_[i].source_index != p.source_stream) ++i;
    if (i == passthrough_.size() || p.packet->pts == AV_NOPTS_VALUE) return Verdict::Keep;
    const AVRational tb = passthrough_[i].time_base;
    const int64_t offset = av_rescale_q(input_offset_us_ - seconds_in_us(window_.output_start.value_or(0)), AV_TIME_BASE_Q, tb);
    const int64_t t = p.packet->pts + offset;
    if (packets_kept_[i] == 0 && t < 0) return Verdict::Drop;
    std::optional<double> end;
    if (window_.input_duration) end = *window_.input_duration - window_.output_start.value_or(0);
    if (window_.output_duration) end = end ? std::min(*end, *window_.output_duration) : *window_.output_duration;
    if (end && t >= seconds_in_ticks(*end, tb)) return Verdict::Drop;
    p.packet->pts = t;
    if (p.packet->dts != AV_NOPTS_VALUE) p.packet->dts += offset;
    ++packets_kept_[i];
    return Verdict::Keep;
}

}  // namespace vf
