// The timeline a FileSource hands on. Timestamps never go back: a jump back (concatenated parts,
// a restarted camera) continues one frame interval after the last frame, and after a reconnect
// the new connection continues after the last frame plus the real length of the outage (in whole
// frame intervals: the frames stay on one frame grid), so a recording's clock stays true; passthrough packets are shifted with the video. It also keeps
// when each video packet was read (frame latency) and how far the input got (truncated files).
#pragma once

#include <deque>
#include <string>
#include <utility>

#include "media/frame.hpp"

namespace vf {

class InputTimeline {
public:
    // `video` is the first connection's description (time base, frame rate); it must outlive this.
    explicit InputTimeline(const VideoInfo& video) : video_(video) {}

    // The frame's timestamp (in the video's time base) made monotonic; `index` names the frame in
    // the one warning a jump back prints. A frame without one (AV_NOPTS_VALUE) gets one frame
    // interval after the last frame (none before the first frame).
    int64_t continuous_pts(int64_t pts, int64_t index);

    // The first packet of a new connection, in time base `tb`, continues the timeline after
    // `gap_s` of outage, rounded to whole frame intervals. False when the packet has no timestamp (try the next one).
    bool rebase(const AVPacket* packet, AVRational tb, double gap_s);

    // Shifts a passthrough packet in time base `tb` by the offset applied to the video.
    void shift(AVPacket* packet, AVRational tb) const;

    // When each video packet was read, matched to its frame by timestamp.
    void note_read(const AVPacket* packet);
    Clock::time_point read_time_of(int64_t pts);
    void forget_reads() { read_times_.clear(); }

    // How far the input got, and a message when that is well short of `duration_us` (the
    // container's stated duration), else "".
    void note_extent(const AVPacket* packet, AVRational tb, int64_t start_time_us);
    std::string truncation(int64_t duration_us) const;

private:
    const VideoInfo& video_;
    int64_t last_pts_ = AV_NOPTS_VALUE;  // of the last video frame, after the offset
    int64_t offset_us_ = 0;              // added to every timestamp after a jump back or a reconnect
    bool warned_jump_ = false;
    std::deque<std::pair<int64_t, Clock::time_point>> read_times_;  // video packet pts -> when read
    double furthest_s_ = 0;      // the latest packet end on any stream, from the input's start
    double furthest_abs_s_ = 0;  // the same from timestamp 0
};

}  // namespace vf
