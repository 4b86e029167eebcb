// ffmpeg's -ss, -t and -to on a source's items (pipeline/time_cut.hpp): which frames are kept,
// where the run ends, the timestamps shifted so the output starts where ffmpeg's does, and the
// passthrough packets cut alike. (The same lines against ffmpeg itself:
// tests/cli/ffmpeg_options_test.cpp.)
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "pipeline/time_cut.hpp"

namespace vf {
namespace {

// A 25 fps video (time base 1/25) of an input that starts at `start_s`, with one audio stream.
struct Input {
    VideoInfo video;
    std::vector<PassthroughStream> audio;
    explicit Input(double start_s) {
        video.time_base = {1, 25};
        video.start_s = start_s;
        PassthroughStream a;
        a.source_index = 1;
        a.time_base = {1, 1000};
        audio.push_back(a);
    }
};

PipelineItem frame_at(int64_t pts) {
    VideoFrame v;
    v.frame.reset(av_frame_alloc());
    v.frame->pts = pts;
    return PipelineItem(std::move(v));
}

PipelineItem packet_at(int64_t pts_ms) {
    PassthroughPacket p;
    p.packet.reset(av_packet_alloc());
    p.packet->pts = p.packet->dts = pts_ms;
    p.source_stream = 1;
    return PipelineItem(std::move(p));
}

// The frames 0..count-1 through `cut`: the shifted pts of each kept, until the end.
std::vector<int64_t> kept_frames(TimeCut& cut, int64_t first_pts, int count) {
    std::vector<int64_t> kept;
    for (int i = 0; i < count; ++i) {
        PipelineItem item = frame_at(first_pts + i);
        const TimeCut::Verdict v = cut.admit(item);
        if (v == TimeCut::Verdict::End) break;
        if (v == TimeCut::Verdict::Keep) kept.push_back(std::get<VideoFrame>(item).frame->pts);
    }
    return kept;
}

TEST(TimeCut, InputStartDropsBeforeAndShiftsToZero) {
    const Input in(0);
    TimeWindow w;
    w.input_start = 0.2;      // frame 5
    w.input_duration = 0.12;  // 3 frames
    TimeCut cut(w, in.video, in.audio);
    EXPECT_EQ(kept_frames(cut, 0, 30), (std::vector<int64_t>{0, 1, 2}));
}

TEST(TimeCut, TimesCountFromTheInputsStartTime) {
    const Input in(1.4);  // an MPEG-TS that starts at 1.4 s: frame 35
    TimeWindow w;
    w.output_start = 0.4;  // 1.8 s: frame 45, written at 0
    w.output_duration = 0.2;
    TimeCut cut(w, in.video, in.audio);
    EXPECT_EQ(kept_frames(cut, 35, 40), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(TimeCut, ADurationCountsFromTheFirstFrameKept) {
    const Input in(0);
    TimeWindow w;
    // Between frames 12 and 13: the offset, 12.5 frames, rounds to 13 in this time base (as
    // ffmpeg's does), so frame 13 starts the output at 0; 0.08 s later the run ends.
    w.input_start = 0.5;
    w.output_duration = 0.08;
    TimeCut cut(w, in.video, in.audio);
    EXPECT_EQ(kept_frames(cut, 0, 30), (std::vector<int64_t>{0, 1}));
}

TEST(TimeCut, PacketsBeforeTheStartAndAfterTheEndAreDropped) {
    const Input in(0);
    TimeWindow w;
    w.input_start = 1;
    w.output_duration = 0.5;
    TimeCut cut(w, in.video, in.audio);
    for (const auto& [ms, verdict, shifted] : std::vector<std::tuple<int64_t, TimeCut::Verdict, int64_t>>{
             {900, TimeCut::Verdict::Drop, 0},
             {1000, TimeCut::Verdict::Keep, 0},
             {1300, TimeCut::Verdict::Keep, 300},
             {1500, TimeCut::Verdict::Drop, 0}}) {
        PipelineItem item = packet_at(ms);
        EXPECT_EQ(cut.admit(item), verdict) << ms;
        if (verdict == TimeCut::Verdict::Keep) {
            EXPECT_EQ(std::get<PassthroughPacket>(item).packet->pts, shifted) << ms;
        }
    }
}

}  // namespace
}  // namespace vf
