#include "decode/input_timeline.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vf {
namespace {

constexpr size_t kReadTimesKept = 256;  // more than any decoder holds back

int64_t packet_time(const AVPacket* packet, bool dts_first) {
    const int64_t a = dts_first ? packet->dts : packet->pts, b = dts_first ? packet->pts : packet->dts;
    return a != AV_NOPTS_VALUE ? a : b;
}

}  // namespace

int64_t InputTimeline::continuous_pts(int64_t pts, int64_t index) {
    if (pts == AV_NOPTS_VALUE) {
        // A frame with no timestamp (the last one a decoder gives up when a camera's connection is
        // cut inside a frame): one frame interval after the last, as a player would show it. Left
        // without one, the output could only place it a tick after the last frame.
        if (last_pts_ != AV_NOPTS_VALUE) last_pts_ += video_.frame_interval(video_.time_base);
        return last_pts_;
    }
    const AVRational tb = video_.time_base;
    pts += av_rescale_q(offset_us_, AV_TIME_BASE_Q, tb);
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) {
        const int64_t target = last_pts_ + video_.frame_interval(video_.time_base);
        offset_us_ += av_rescale_q(target - pts, tb, AV_TIME_BASE_Q);
        if (!warned_jump_)
            spdlog::warn("timestamps go back {:.3f} s at frame {} (or repeat); continuing the timeline after the last frame",
                         (last_pts_ - pts) * av_q2d(tb), index);
        warned_jump_ = true;
        pts = target;
    }
    last_pts_ = pts;
    return pts;
}

bool InputTimeline::rebase(const AVPacket* packet, AVRational tb, double gap_s) {
    const int64_t ts = packet_time(packet, true);
    if (ts == AV_NOPTS_VALUE) return false;
    int64_t resume_us = 0;
    if (last_pts_ != AV_NOPTS_VALUE) {
        // The outage counts in whole frame intervals, so the new connection's frames stay on the
        // first connection's frame grid: at a fraction of an interval off it, a Matroska recording's
        // millisecond times put every third frame in its neighbour's slot of a constant-rate reader
        // (ffmpeg's null output, players), as two frames at one time.
        const int64_t interval = video_.frame_interval(video_.time_base);
        const double interval_s = interval * av_q2d(video_.time_base);
        const int64_t steps = 1 + std::max<int64_t>(0, std::llround(gap_s / interval_s));
        resume_us = av_rescale_q(last_pts_ + steps * interval, video_.time_base, AV_TIME_BASE_Q);
    }
    offset_us_ = resume_us - av_rescale_q(ts, tb, AV_TIME_BASE_Q);
    return true;
}

void InputTimeline::shift(AVPacket* packet, AVRational tb) const {
    if (!offset_us_) return;
    const int64_t by = av_rescale_q(offset_us_, AV_TIME_BASE_Q, tb);
    if (packet->pts != AV_NOPTS_VALUE) packet->pts += by;
    if (packet->dts != AV_NOPTS_VALUE) packet->dts += by;
}

void InputTimeline::note_read(const AVPacket* packet) {
    const int64_t ts = packet_time(packet, false);
    if (ts == AV_NOPTS_VALUE) return;
    read_times_.emplace_back(ts, Clock::now());
    if (read_times_.size() > kReadTimesKept) read_times_.pop_front();
}

Clock::time_point InputTimeline::read_time_of(int64_t pts) {
    for (auto it = read_times_.begin(); it != read_times_.end(); ++it)
        if (it->first == pts) {
            const Clock::time_point t = it->second;
            read_times_.erase(it);
            return t;
        }
    return Clock::now();
}

void InputTimeline::note_extent(const AVPacket* packet, AVRational tb, int64_t start_time_us) {
    const int64_t ts = packet_time(packet, false);
    if (ts == AV_NOPTS_VALUE) return;
    const double end = (ts + std::max<int64_t>(packet->duration, 0)) * av_q2d(tb);
    furthest_abs_s_ = std::max(furthest_abs_s_, end);
    furthest_s_ = std::max(furthest_s_, end - (start_time_us > 0 ? start_time_us / double(AV_TIME_BASE) : 0));
}

std::string InputTimeline::truncation(int64_t duration_us) const {
    const double duration = duration_us > 0 ? duration_us / static_cast<double>(AV_TIME_BASE) : 0;
    // Containers disagree on whether their duration counts from the first timestamp or from 0
    // (Matroska), so the input is short only when it falls short both ways.
    const double tolerance = std::max(0.5, 0.02 * duration);
    if (duration <= 0 || furthest_s_ <= 0 || furthest_s_ >= duration - tolerance || furthest_abs_s_ >= duration - tolerance)
        return "";
    char buf[128];
    std::snprintf(buf, sizeof buf, "the input ends at %.1f s of its stated %.1f s (truncated?)", furthest_s_, duration);
    return buf;
}

}  // namespace vf
