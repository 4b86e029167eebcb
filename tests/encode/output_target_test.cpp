#include "encode/output_target.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.hpp"

namespace vf {
namespace {

TEST(Outputs, KindFromTheName) {
    EXPECT_EQ(output_kind("out.mp4"), OutputKind::File);
    EXPECT_EQ(output_kind("-"), OutputKind::Stdout);
    EXPECT_EQ(output_kind("rtmp://127.0.0.1/live/key"), OutputKind::Network);
    EXPECT_EQ(output_kind("srt://h:9000"), OutputKind::Network);
    EXPECT_EQ(output_kind("udp://239.0.0.1:1234"), OutputKind::Network);
    EXPECT_EQ(output_kind("rtsp://server/path"), OutputKind::Network);
    EXPECT_THROW(output_kind("gopher://x"), Error);
}

// SRT's live mode discards at close what the receiver has not handed over: the output stays
// connected 1 s plus the latency the URL asks for (microseconds, as FFmpeg's options).
TEST(Outputs, SrtStaysConnectedForItsLatencyAfterTheLastPacket) {
    EXPECT_DOUBLE_EQ(srt_close_delay_s("srt://host:9000"), 1.0);
    EXPECT_DOUBLE_EQ(srt_close_delay_s("srt://host:9000?mode=caller&latency=500000"), 1.5);
    EXPECT_DOUBLE_EQ(srt_close_delay_s("srt://host:9000?peerlatency=2000000&latency=300000"), 3.0);
    EXPECT_DOUBLE_EQ(srt_close_delay_s("srt://host:9000?latency=abc"), 1.0) << "not a number: FFmpeg refuses it";
    EXPECT_DOUBLE_EQ(srt_close_delay_s("srt://host:9000?xlatency=9000000"), 1.0);
    EXPECT_DOUBLE_EQ(srt_close_delay_s("udp://host:9000?latency=500000"), 0.0);
    EXPECT_DOUBLE_EQ(srt_close_delay_s("out.ts"), 0.0);
}

TEST(Outputs, SegmentNames) {
    EXPECT_EQ(segment_pattern("rec.mp4"), "rec-%05d.mp4");
    EXPECT_EQ(segment_pattern("/data/cam.1/rec"), "/data/cam.1/rec-%05d");
    EXPECT_EQ(segment_pattern("rec-%03d.mkv"), "rec-%03d.mkv");
    EXPECT_EQ(segment_pattern("cam-%Y%m%d-%H%M%S.mp4"), "cam-%Y%m%d-%H%M%S.mp4");
}

TEST(Outputs, DatedPatternsAreStrftimeFieldsNotNumbers) {
    EXPECT_TRUE(dated_pattern("cam-%Y%m%d.mp4"));
    EXPECT_TRUE(dated_pattern("cam-%H-%M-%S.mkv"));
    EXPECT_FALSE(dated_pattern("rec-%05d.mp4"));
    EXPECT_FALSE(dated_pattern("rec.mp4"));
}

std::string temp_name(const char* suffix) {
    return "/tmp/vf_output_target_" + std::to_string(getpid()) + suffix;
}

TEST(Outputs, AnExistingFileIsRefusedWithoutOverwriteAndTheInputAlways) {
    const std::string in = temp_name("_in.mp4"), out = temp_name("_out.mp4");
    std::ofstream(in) << "x";
    std::ofstream(out) << "x";
    OutputOptions o;
    o.path = out;
    o.input_path = in;
    EXPECT_THROW(check_output_path(o), Error);
    o.overwrite = true;
    EXPECT_NO_THROW(check_output_path(o));
    o.path = in;  // the input itself, even with -y
    try {
        check_output_path(o);
        ADD_FAILURE() << "writing over the input was allowed";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Output);
        EXPECT_NE(std::string(e.what()).find("is the input"), std::string::npos) << e.what();
    }
    o.path = "/tmp";
    EXPECT_THROW(check_output_path(o), Error);  // a directory
    o.path = temp_name("_absent.mp4");
    EXPECT_NO_THROW(check_output_path(o));
    o.path = "";
    EXPECT_THROW(check_output_path(o), Error);
    std::remove(in.c_str());
    std::remove(out.c_str());
}

}  // namespace
}  // namespace vf
