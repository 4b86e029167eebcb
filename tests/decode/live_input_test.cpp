// What counts as live, how capture and transport options are checked, pacing, where outputs go,
// and how segment files are named.
#include <gtest/gtest.h>

#include <thread>

#include "common/error.hpp"
#include "decode/live_input.hpp"

namespace vf {
namespace {

TEST(LiveInput, LiveUrlsAndCaptureDevices) {
    for (const char* url : {"rtsp://cam/1", "RTMP://host/app/key", "srt://h:9000", "udp://127.0.0.1:5000", "rtp://h:1",
                            "tcp://h:1", "/dev/video0", "v4l2:///dev/video2"})
        EXPECT_TRUE(is_live_url(url)) << url;
    for (const char* url : {"clip.mp4", "-", "https://example.com/a.mp4", "/dev/null", "video0.mp4"})
        EXPECT_FALSE(is_live_url(url)) << url;
    std::string device;
    EXPECT_TRUE(is_capture_device("v4l2:///dev/video3", &device));
    EXPECT_EQ(device, "/dev/video3");
    EXPECT_FALSE(is_capture_device("/tmp/dev/video0.mp4"));
}

TEST(LiveInput, OptionsAreCheckedBeforeAnythingOpens) {
    const AVInputFormat* fmt = nullptr;
    LiveInputOptions o;
    o.input_size = "640x480";
    EXPECT_THROW(live_open_options("clip.mp4", o, &fmt), Error) << "capture options on a file";
    o.input_size = "640by480";
    EXPECT_THROW(live_open_options("/dev/video0", o, &fmt), Error);
    o.input_size = "0x480";
    EXPECT_THROW(live_open_options("/dev/video0", o, &fmt), Error);
    o = {};
    o.input_format = "no-such-format";
    EXPECT_THROW(live_open_options("/dev/video0", o, &fmt), Error);
    o = {};
    o.rtsp_transport = "sctp";
    EXPECT_THROW(live_open_options("rtsp://cam", o, &fmt), Error);

    o = {};
    AVDictionary* d = live_open_options("rtsp://cam", o, &fmt);
    ASSERT_NE(av_dict_get(d, "rtsp_transport", nullptr, 0), nullptr);
    EXPECT_STREQ(av_dict_get(d, "rtsp_transport", nullptr, 0)->value, "tcp") << "TCP by default: no lost packets";
    av_dict_free(&d);
    o.low_latency = true;
    d = live_open_options("clip.mp4", o, &fmt);
    EXPECT_EQ(av_dict_get(d, "fflags", nullptr, 0), nullptr) << "a file must not lose its probed frames";
    av_dict_free(&d);
    d = live_open_options("udp://127.0.0.1:1", o, &fmt);
    EXPECT_NE(av_dict_get(d, "fflags", nullptr, 0), nullptr);
    av_dict_free(&d);
}

TEST(LiveInput, PacerKeepsTimestampPaceAndSkipsJumps) {
    std::atomic<bool> stop{false};
    RealtimePacer pacer;
    const auto t0 = Clock::now();
    for (int i = 0; i <= 10; ++i) pacer.pace(100.0 + i * 0.02, stop);  // 0.2 s of timestamps
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_GE(took, 0.19);
    EXPECT_LT(took, 0.5);
    const auto t1 = Clock::now();
    pacer.pace(500.0, stop);  // a jump far ahead restarts the clock instead of sleeping 400 s
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t1).count(), 1.0);
    stop = true;
    const auto t2 = Clock::now();
    pacer.pace(503.0, stop);  // a stop request ends a wait at once, not after its 3 s
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t2).count(), 1.0);
}

}  // namespace
}  // namespace vf
