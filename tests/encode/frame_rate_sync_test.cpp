// ffmpeg 5.1's video sync for -r (encode/frame_rate_sync.hpp): which frames are written how often,
// at which output times, for each method, worked out by hand from fftools/ffmpeg.c's
// do_video_out (its output is compared with ffmpeg's itself in tests/cli/ffmpeg_options_test.cpp).
// Its rules drop late: a frame goes only once the output is more than 1.1 frames ahead (cfr) or
// 0.6 (vfr) of it.
#include <gtest/gtest.h>

#include <vector>

#include "encode/frame_rate_sync.hpp"

namespace vf {
namespace {

// Frames 0..count-1 of a 25 fps input (time base 1/25) through `sync`: per output frame, the
// input frame it shows (flush repeats included).
std::vector<int> shown(FrameRateSync& sync, int count) {
    std::vector<int> out;
    for (int i = 0; i < count; ++i)
        for (const FrameRateSync::Copy& c : sync.place(i, 1)) {
            EXPECT_EQ(c.pts, static_cast<int64_t>(out.size())) << "output times are consecutive";
            out.push_back(c.previous ? i - 1 : i);
        }
    const size_t repeats = sync.flush().size();
    out.insert(out.end(), repeats, count - 1);
    return out;
}

TEST(FrameRateSync, ConstantRateRepeatsToFillAndDropsToKeep) {
    // Each frame lasts one output frame (the shorter of the two rates), then the next one's time
    // two output frames on repeats it.
    FrameRateSync doubled(VideoSync::Cfr, {50, 1}, {25, 1}, {1, 25}, 0, true);
    EXPECT_EQ(shown(doubled, 4), (std::vector<int>{0, 1, 1, 2, 2, 3, 3}));
    FrameRateSync halved(VideoSync::Cfr, {25, 2}, {25, 1}, {1, 25}, 0, true);
    EXPECT_EQ(shown(halved, 6), (std::vector<int>{0, 1, 2, 3, 5}));
}

TEST(FrameRateSync, VariableRateOnlyDrops) {
    FrameRateSync doubled(VideoSync::Vfr, {50, 1}, {25, 1}, {1, 25}, 0, true);
    std::vector<int64_t> times;
    for (int i = 0; i < 4; ++i)
        for (const FrameRateSync::Copy& c : doubled.place(i, 1)) times.push_back(c.pts);
    EXPECT_EQ(times, (std::vector<int64_t>{0, 2, 4, 6})) << "each frame once, at its own time";
    EXPECT_TRUE(doubled.flush().empty());
    FrameRateSync halved(VideoSync::Vfr, {25, 2}, {25, 1}, {1, 25}, 0, true);
    EXPECT_EQ(shown(halved, 6), (std::vector<int>{0, 1, 2, 4}));
}

TEST(FrameRateSync, FirstFrameLateStartsAtItsOwnTimeUnderVsCfr) {
    // A first frame 2 s in: cfr repeats it from 0, vscfr starts the output at it.
    FrameRateSync cfr(VideoSync::Cfr, {25, 1}, {25, 1}, {1, 25}, 0, true);
    FrameRateSync vscfr(VideoSync::VsCfr, {25, 1}, {25, 1}, {1, 25}, 0, true);
    EXPECT_EQ(cfr.place(50, 1).size(), 51u);
    const std::vector<FrameRateSync::Copy> late = vscfr.place(50, 1);
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].pts, 50);
}

TEST(FrameRateSync, FramesAndDurationLimitWhatIsWritten) {
    FrameRateSync limited(VideoSync::Cfr, {50, 1}, {25, 1}, {1, 25}, 5, true);
    EXPECT_EQ(shown(limited, 10).size(), 5u) << "-frames:v counts the frames written";
    FrameRateSync timed(VideoSync::Cfr, {50, 1}, {25, 1}, {1, 25}, 0, true, 100000);  // -t 0.1: 5 frames at 50 fps
    EXPECT_EQ(shown(timed, 10).size(), 5u);
}

TEST(FrameRateSync, TheContainerChoosesTheMethodAsFfmpegDoes) {
    EXPECT_EQ(default_video_sync(av_guess_format("mp4", nullptr, nullptr), true), VideoSync::VsCfr);
    EXPECT_EQ(default_video_sync(av_guess_format("mp4", nullptr, nullptr), false), VideoSync::Cfr);
    EXPECT_EQ(default_video_sync(av_guess_format("matroska", nullptr, nullptr), true), VideoSync::Vfr);
    EXPECT_EQ(default_video_sync(av_guess_format("avi", nullptr, nullptr), true), VideoSync::Vfr);
    EXPECT_EQ(default_video_sync(av_guess_format("null", nullptr, nullptr), true), VideoSync::Passthrough);
}

}  // namespace
}  // namespace vf
