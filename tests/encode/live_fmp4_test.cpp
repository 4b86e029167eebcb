// Live video for the page (encode/live_fmp4.cpp): the init segment and the fragments, as a viewer
// gets them, make a stream FFmpeg decodes without one error line, frame for frame; a viewer that
// joins at a later keyframe decodes from there; a keyframe comes at once when asked and on time
// otherwise; a change of frame size starts a new init segment.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "encode/live_fmp4.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

// A moving diagonal ramp, w x h yuv420p (odd sizes allowed), frame n.
AvFramePtr ramp(int w, int h, int n) {
    AvFramePtr f = make_frame();
    f->format = AV_PIX_FMT_YUV420P;
    f->width = w;
    f->height = h;
    EXPECT_GE(av_frame_get_buffer(f.get(), 0), 0);
    for (int p = 0; p < 3; ++p) {
        const int pw = p ? (w + 1) / 2 : w, ph = p ? (h + 1) / 2 : h;
        for (int y = 0; y < ph; ++y)
            for (int x = 0; x < pw; ++x) f->data[p][y * f->linesize[p] + x] = static_cast<uint8_t>(p ? 128 + (x - y) / 4 : x + y + 4 * n);
    }
    return f;
}

std::string write_stream(const std::string& name, const std::string& init, const std::vector<LiveFragment>& fragments, size_t from) {
    const std::string path = test::temp_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << init;
    for (size_t i = from; i < fragments.size(); ++i) out << fragments[i].bytes;
    return path;
}

TEST(LiveFmp4, InitAndFragmentsDecodeFrameForFrame) {
    if (test::run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    LiveFmp4Encoder enc(160, 1.0);
    EXPECT_TRUE(enc.init_segment().empty());
    std::vector<LiveFragment> fragments;
    for (int n = 0; n < 75; ++n) {
        if (n == 40) enc.request_keyframe();
        for (LiveFragment& f : enc.encode(*ramp(321, 241, n), 1000 + n * 40)) fragments.push_back(std::move(f));
    }
    ASSERT_EQ(fragments.size(), 74u) << "zero-latency encoding: one fragment a frame, once the next is here";
    EXPECT_EQ(enc.width(), 160);
    EXPECT_EQ(enc.height(), 120);
    EXPECT_TRUE(std::regex_match(enc.codec(), std::regex("avc1\\.[0-9a-f]{6}"))) << enc.codec();
    EXPECT_EQ(enc.init_segment().substr(4, 4), "ftyp");
    std::vector<int> keyframes;
    for (size_t i = 0; i < fragments.size(); ++i) {
        EXPECT_EQ(fragments[i].bytes.substr(4, 4), "moof") << i;
        EXPECT_EQ(fragments[i].pts_ms, static_cast<int64_t>(i) * 40) << i;
        if (fragments[i].keyframe) keyframes.push_back(static_cast<int>(i));
    }
    // The first, the one asked for at 40, and every second after it (1 s of 40 ms frames = 25).
    EXPECT_EQ(keyframes, (std::vector<int>{0, 25, 40, 65})) << "keyframes";
    const test::RecordingCheck all = test::check_recording(write_stream("all.mp4", enc.init_segment(), fragments, 0));
    EXPECT_TRUE(all.clean) << all.errors;
    EXPECT_EQ(all.frames, 74);
    // A viewer that joined at the keyframe it asked for.
    const test::RecordingCheck joined = test::check_recording(write_stream("joined.mp4", enc.init_segment(), fragments, 40));
    EXPECT_TRUE(joined.clean) << joined.errors;
    EXPECT_EQ(joined.frames, 34);
    // A frame of another size: a new init segment, starting with a keyframe.
    const int generation = enc.init_generation();
    EXPECT_TRUE(enc.encode(*ramp(200, 100, 0), 5000).empty());
    EXPECT_EQ(enc.init_generation(), generation + 1);
    const std::vector<LiveFragment> after = enc.encode(*ramp(200, 100, 1), 5040);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_TRUE(after[0].keyframe);
    EXPECT_EQ(enc.width(), 160);
    EXPECT_EQ(enc.height(), 80);
}

}  // namespace
}  // namespace vf
