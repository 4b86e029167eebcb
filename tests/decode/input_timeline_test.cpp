#include "decode/input_timeline.hpp"

#include <gtest/gtest.h>

#include <random>

namespace vf {
namespace {

VideoInfo video_at_25fps() {
    VideoInfo v;
    v.time_base = {1, 1000};
    v.frame_rate = {25, 1};
    return v;
}

AvPacketPtr packet_at(int64_t pts, int64_t dts, int64_t duration = 0) {
    AvPacketPtr p = make_packet();
    p->pts = pts;
    p->dts = dts;
    p->duration = duration;
    return p;
}

TEST(InputTimeline, MonotonicTimestampsPassUnchanged) {
    const VideoInfo v = video_at_25fps();
    InputTimeline t(v);
    for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(t.continuous_pts(i * 40, i), i * 40);
}

// The frame a decoder gives up when a camera's connection is cut inside it can come without a
// timestamp: it is placed a frame interval after the last one, never a tick after it (which two
// segments written under load showed as two frames at once).
TEST(InputTimeline, AFrameWithoutATimestampComesAFrameAfterTheLast) {
    const VideoInfo v = video_at_25fps();
    InputTimeline t(v);
    EXPECT_EQ(t.continuous_pts(AV_NOPTS_VALUE, 0), AV_NOPTS_VALUE) << "nothing to follow yet";
    EXPECT_EQ(t.continuous_pts(1000, 1), 1000);
    EXPECT_EQ(t.continuous_pts(1040, 2), 1040);
    EXPECT_EQ(t.continuous_pts(AV_NOPTS_VALUE, 3), 1080);
    EXPECT_EQ(t.continuous_pts(AV_NOPTS_VALUE, 4), 1120);
    EXPECT_EQ(t.continuous_pts(1160, 5), 1160) << "a frame with its own timestamp after them is unchanged";
    VideoInfo no_rate = v;
    no_rate.frame_rate = {0, 1};
    InputTimeline u(no_rate);
    EXPECT_EQ(u.continuous_pts(0, 0), 0);
    EXPECT_EQ(u.continuous_pts(AV_NOPTS_VALUE, 1), 40) << "no frame rate known: 25 fps";
}

TEST(InputTimeline, AJumpBackContinuesOneFrameAfterTheLastAndShiftsLaterFrames) {
    const VideoInfo v = video_at_25fps();
    InputTimeline t(v);
    EXPECT_EQ(t.continuous_pts(1000, 0), 1000);
    EXPECT_EQ(t.continuous_pts(1040, 1), 1040);
    EXPECT_EQ(t.continuous_pts(0, 2), 1080);  // went back 1.04 s
    EXPECT_EQ(t.continuous_pts(40, 3), 1120);  // the offset holds for what follows
    EXPECT_EQ(t.continuous_pts(40, 4), 1160);  // a repeat is a step back too
    AvPacketPtr audio = packet_at(0, 0);
    t.shift(audio.get(), {1, 48000});  // passthrough moves with the video
    EXPECT_EQ(audio->pts, av_rescale_q(1120, {1, 1000}, {1, 48000}));
}

TEST(InputTimeline, AReconnectContinuesAfterTheLastFramePlusTheOutage) {
    const VideoInfo v = video_at_25fps();
    InputTimeline t(v);
    EXPECT_EQ(t.continuous_pts(0, 0), 0);
    EXPECT_EQ(t.continuous_pts(40, 1), 40);
    EXPECT_FALSE(t.rebase(packet_at(AV_NOPTS_VALUE, AV_NOPTS_VALUE).get(), {1, 90000}, 2.0));
    // The new connection starts its own clock at 900000/90000 = 10 s.
    ASSERT_TRUE(t.rebase(packet_at(900000, 900000).get(), {1, 90000}, 2.0));
    // 40 ms (last frame) + 40 ms (one frame) + 2 s (down) = 2.08 s.
    EXPECT_EQ(t.continuous_pts(10000, 2), 2080);
}

// The outage counts in whole frame intervals: after any gap the frames stay on the first
// connection's grid (a recording a fraction of a frame off it puts two frames in one slot of a
// constant-rate reader), and the clock is off by at most half a frame.
TEST(InputTimeline, AReconnectKeepsTheFramesOnOneGridForAnyOutage) {
    VideoInfo v;
    v.time_base = {1, 90000};
    v.frame_rate = {30000, 1001};
    const int64_t interval = 3003;
    std::mt19937 random(std::random_device{}());
    std::uniform_real_distribution<double> gap_s(0.0, 5.0);
    std::uniform_int_distribution<int64_t> start(0, 1 << 30);
    for (int trial = 0; trial < 200; ++trial) {
        InputTimeline t(v);
        int64_t pts = 0;
        for (int i = 0; i < 3; ++i) pts = t.continuous_pts(i * interval, i);
        const double gap = gap_s(random);
        const int64_t new_start = start(random);  // the new connection's own clock
        ASSERT_TRUE(t.rebase(packet_at(new_start, new_start).get(), {1, 90000}, gap));
        for (int i = 0; i < 3; ++i) {
            const int64_t next = t.continuous_pts(new_start + i * interval, 3 + i);
            EXPECT_EQ(next % interval, 0) << "gap " << gap << " s: frame " << next << " is off the grid";
            if (i == 0) {
                const double clock_s = (next - pts) / 90000.0 - interval / 90000.0;
                EXPECT_NEAR(clock_s, gap, interval / 90000.0 / 2 + 1e-6) << "the outage's length, to half a frame";
            }
        }
    }
}

TEST(InputTimeline, ReadTimesAreMatchedByTimestampOnce) {
    const VideoInfo v = video_at_25fps();
    InputTimeline t(v);
    const Clock::time_point before = Clock::now();
    t.note_read(packet_at(40, 0).get());
    const Clock::time_point read = t.read_time_of(40);
    EXPECT_GE(read, before);
    EXPECT_LE(read, Clock::now());
    const Clock::time_point later = Clock::now();
    EXPECT_GE(t.read_time_of(40), later);  // used up: an unknown frame counts from now
}

TEST(InputTimeline, ATruncatedInputIsShortBothFromItsStartAndFromZero) {
    const VideoInfo v = video_at_25fps();
    InputTimeline whole(v), cut(v), offset(v);
    for (int64_t ms = 0; ms < 10000; ms += 40) whole.note_extent(packet_at(ms, ms, 40).get(), {1, 1000}, 0);
    EXPECT_EQ(whole.truncation(10 * AV_TIME_BASE), "");
    for (int64_t ms = 0; ms < 4000; ms += 40) cut.note_extent(packet_at(ms, ms, 40).get(), {1, 1000}, 0);
    EXPECT_EQ(cut.truncation(10 * AV_TIME_BASE), "the input ends at 4.0 s of its stated 10.0 s (truncated?)");
    EXPECT_EQ(cut.truncation(0), "");  // no stated duration: nothing to compare with
    // Timestamps from 5 s on a 10 s duration that counts from 0 (Matroska) are complete.
    for (int64_t ms = 5000; ms < 10000; ms += 40) offset.note_extent(packet_at(ms, ms, 40).get(), {1, 1000}, 5 * AV_TIME_BASE);
    EXPECT_EQ(offset.truncation(10 * AV_TIME_BASE), "");
}

}  // namespace
}  // namespace vf
