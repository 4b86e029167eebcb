#include "encode/video_encoder.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace vf {
namespace {

VideoInfo small_video() {
    VideoInfo v;
    v.width = 64;
    v.height = 48;
    v.format = AV_PIX_FMT_YUV420P;
    v.time_base = {1, 90000};
    v.frame_rate = {30, 1};
    return v;
}

ErrorCategory category_of(const OutputOptions& o) {
    try {
        open_video_encoder(o, small_video(), false);
    } catch (const Error& e) {
        return e.category();
    }
    return ErrorCategory::Internal;  // no error: a category no case expects
}

TEST(VideoEncoder, AliasesNameRealEncodersAndUnknownNamesAreUsageErrors) {
    EXPECT_STREQ(find_video_encoder("h264")->name, "libx264");
    EXPECT_STREQ(find_video_encoder("auto")->name, "libx264");
    EXPECT_STREQ(find_video_encoder("raw")->name, "rawvideo");
    EXPECT_THROW(find_video_encoder("no-such-codec"), Error);
    EXPECT_THROW(find_video_encoder("aac"), Error);  // an audio encoder
}

TEST(VideoEncoder, BitratesTakeKAndMAndRefuseNonsense) {
    OutputOptions o;
    o.codec = "libx264";
    o.bitrate = "2500k";
    EXPECT_EQ(open_video_encoder(o, small_video(), false)->bit_rate, 2500000);
    o.bitrate = "4M";
    EXPECT_EQ(open_video_encoder(o, small_video(), false)->bit_rate, 4000000);
    for (const char* bad : {"", "x", "-1M", "4G", "1e20", "4Mb"}) {
        o.bitrate = bad;
        if (!*bad) continue;  // empty means constant quality
        EXPECT_EQ(category_of(o), ErrorCategory::Usage) << bad;
    }
}

TEST(VideoEncoder, PresetsAreChecked_LiveGetsTwoSecondKeyframes_AndTheTimeBaseIsKept) {
    OutputOptions o;
    o.codec = "libx264";
    o.preset = "not-a-preset";
    EXPECT_EQ(category_of(o), ErrorCategory::Usage);
    o.preset = "ultrafast";
    o.live = true;
    o.low_latency = true;
    AvCodecContextPtr e = open_video_encoder(o, small_video(), true);
    EXPECT_EQ(e->gop_size, 60);
    EXPECT_EQ(e->max_b_frames, 0);
    EXPECT_TRUE(e->flags & AV_CODEC_FLAG_GLOBAL_HEADER);
    EXPECT_EQ(av_cmp_q(e->time_base, AVRational{1, 90000}), 0);
    o = OutputOptions{};
    o.codec = "mpeg4";  // cannot store a 1/90000 time base
    e = open_video_encoder(o, small_video(), false);
    EXPECT_EQ(av_cmp_q(e->time_base, AVRational{1, 30}), 0);
}

TEST(VideoEncoder, AFormatTheEncoderCannotTakeIsConverted) {
    OutputOptions o;
    o.codec = "mpeg4";  // 4:2:0 only
    VideoInfo v = small_video();
    v.format = AV_PIX_FMT_YUV444P;
    EXPECT_EQ(open_video_encoder(o, v, false)->pix_fmt, AV_PIX_FMT_YUV420P);
}

}  // namespace
}  // namespace vf
