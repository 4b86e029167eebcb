// --decode-timer-slack: the thread that reads and decodes gets the slack (the one whose waits in
// NVIDIA's driver it is meant to stretch), and decoding is otherwise unchanged.
#include <gtest/gtest.h>

#include <thread>

#include "common/timer_slack.hpp"
#include "decode/file_source.hpp"
#include "support/clip_writer.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

struct ReadResult {
    int frames = 0;
    int slack_us = -1;  // the reading thread's, after its first read
};

// Reads every frame on a thread of its own, as a stream's decode stage does.
ReadResult read_all_on_a_thread(const FileSourceOptions& o) {
    ReadResult r;
    std::thread reader([&] {
        FileSource src(o);
        while (auto item = src.read()) {
            if (r.slack_us < 0) r.slack_us = thread_timer_slack_us();
            if (std::holds_alternative<VideoFrame>(*item)) ++r.frames;
        }
    });
    reader.join();
    return r;
}

TEST(FileSourceTimerSlack, TheReadingThreadGetsItAndEveryFrameStillComes) {
    ASSERT_GE(thread_timer_slack_us(), 0) << "no timer slack on this system";
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.video_codec = "libx264";
    clip.width = 96;
    clip.height = 64;
    clip.frames = 12;
    clip.audio = false;
    write_clip(clip);

    FileSourceOptions o;
    o.url = clip.path;
    const ReadResult plain = read_all_on_a_thread(o);
    o.timer_slack_us = 900;
    const ReadResult slack = read_all_on_a_thread(o);

    EXPECT_EQ(plain.frames, 12);
    EXPECT_EQ(slack.frames, 12);
    EXPECT_NE(plain.slack_us, 900);
    EXPECT_EQ(slack.slack_us, 900);
    EXPECT_NE(thread_timer_slack_us(), 900);  // the test's own thread kept its own
}

}  // namespace
}  // namespace vf
