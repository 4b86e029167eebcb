// LatencyLog: the percentiles since the start keep the warm-up apart; the recent ones follow the
// last complete 10 s window, so a stall long past no longer shows and a stall now does.
#include "encode/latency_log.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace vf {
namespace {

using std::chrono::milliseconds;

// `n` frames written one every 33 ms from `start`, each `ms` after it was read; returns the time after.
Clock::time_point write_frames(LatencyLog& log, Clock::time_point start, int n, int ms) {
    Clock::time_point t = start;
    for (int i = 0; i < n; ++i, t += milliseconds(33)) log.add(t - milliseconds(ms), t);
    return t;
}

TEST(LatencyLog, RecentFiguresFollowTheLastCompleteWindow) {
    LatencyLog log;
    const Clock::time_point t0 = Clock::now();
    EXPECT_EQ(log.recent_percentile(99, t0), 0);  // nothing written yet

    // A slow start-up (200 ms a frame for 12 s), then 5 ms a frame for 25 s.
    Clock::time_point t = write_frames(log, t0, 364, 200);
    // While the first window fills, recent is that window.
    EXPECT_NEAR(log.recent_percentile(99, t0 + milliseconds(5000)), 200, 200 * 0.03);
    t = write_frames(log, t, 758, 5);
    // The last complete window held only fast frames; since the start, the slow ones are ~32%.
    EXPECT_NEAR(log.recent_percentile(99, t), 5, 5 * 0.03);
    EXPECT_NEAR(log.recent_percentile(50, t), 5, 5 * 0.03);
    EXPECT_NEAR(log.percentile(99), 200, 200 * 0.03);

    // A stall now: 10 s of 80 ms frames shows in the next complete window.
    t = write_frames(log, t, 310, 80);
    EXPECT_NEAR(log.recent_percentile(99, t + milliseconds(200)), 80, 80 * 0.03);
}

TEST(LatencyLog, RecentIsEmptyAfterAWindowWithoutFrames) {
    LatencyLog log;
    const Clock::time_point t0 = Clock::now();
    const Clock::time_point t = write_frames(log, t0, 100, 40);
    EXPECT_NEAR(log.recent_percentile(99, t), 40, 40 * 0.03);
    // 25 s of silence: the last complete window saw no frame; the figures since the start stay.
    EXPECT_EQ(log.recent_percentile(99, t + std::chrono::seconds(25)), 0);
    EXPECT_NEAR(log.percentile(99), 40, 40 * 0.03);
    // Frames again (windows are 10 s from the first frame): the window they fill counts once complete.
    const Clock::time_point back = t0 + std::chrono::seconds(30);
    write_frames(log, back, 10, 7);
    EXPECT_EQ(log.recent_percentile(99, back + std::chrono::seconds(5)), 0);  // the last complete window was silent
    EXPECT_NEAR(log.recent_percentile(99, back + std::chrono::seconds(11)), 7, 7 * 0.03);
}

TEST(LatencyLog, TheWarmUpIsKeptApartFromTheFiguresSinceTheStart) {
    LatencyLog log;
    log.set_warmup(30);
    const Clock::time_point t0 = Clock::now();
    Clock::time_point t = write_frames(log, t0, 30, 500);  // CUDA and encoder start-up
    EXPECT_NEAR(log.percentile(99), 500, 500 * 0.03);       // a run this short reports the warm-up
    write_frames(log, t, 300, 12);
    EXPECT_NEAR(log.percentile(99), 12, 12 * 0.03);
}

}  // namespace
}  // namespace vf
