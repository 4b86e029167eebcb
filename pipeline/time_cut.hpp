// ffmpeg's -ss, -t and -to on what a source gives (vfilter ffmpeg): the frames before the start
// are dropped, the run ends at the end, and the timestamps kept are shifted so that the output
// starts where ffmpeg's does. The arithmetic is ffmpeg 5.1's: an input's times are offset by its
// start time and its -ss (fftools/ffmpeg_opt.c, ts_offset), then cut as its trim filters cut
// (libavfilter/trim.c: a start in the stream's time base, a duration from the first frame kept),
// first for the input's options, then for the output's, whose -ss is taken off the timestamps.
// Frames are cut before the filters (ffmpeg cuts an output's -ss after them: its enable= counts
// n from the input's -ss, vfilter's from the output's).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "config/options.hpp"
#include "media/frame.hpp"

namespace vf {

class TimeCut {
public:
    TimeCut(const TimeWindow& window, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough);

    enum class Verdict { Keep, Drop, End };
    // What becomes of `item`: kept (its timestamps shifted), dropped (before the start; a
    // passthrough packet after the end), or the end of the run (a frame at or after the end).
    Verdict admit(PipelineItem& item);

private:
    // One trim (libavfilter/trim.c) in ticks of a time base: a start, a duration.
    struct Trim {
        std::optional<int64_t> start, duration;
        std::optional<int64_t> first;  // the first frame kept
        Verdict admit(int64_t pts);
    };
    Verdict admit_frame(AVFrame* f);
    Verdict admit_packet(PassthroughPacket& p);

    TimeWindow window_;
    AVRational time_base_;
    int64_t input_offset_us_ = 0;  // ffmpeg's ts_offset: minus the input's start time and its -ss
    Trim input_, output_;          // in the video's time base
    std::vector<PassthroughStream> passthrough_;
    std::vector<int64_t> packets_kept_;  // per passthrough stream
};

}  // namespace vf
