// Packed RGB to its planes and back moves samples and never changes one: every byte comes back,
// alpha and rgb0's padding included; channels read the same from either layout (G, B, R).
#include <gtest/gtest.h>

#include <random>

extern "C" {
#include <libavutil/imgutils.h>
}

#include "media/frame.hpp"
#include "media/rgb_planes.hpp"
#include "support/expected_output.hpp"

namespace vf {
namespace {

AvFramePtr frame_of(AVPixelFormat format, int width, int height) {
    AvFramePtr f = make_frame();
    f->width = width;
    f->height = height;
    f->format = format;
    EXPECT_GE(av_frame_get_buffer(f.get(), 0), 0);
    return f;
}

// Every byte of the picture random (alpha and padding included).
AvFramePtr random_frame_of(AVPixelFormat format, int width, int height, unsigned seed) {
    AvFramePtr f = frame_of(format, width, height);
    std::mt19937 rng(seed);
    for (int p = 0; p < 4 && f->data[p]; ++p)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < av_image_get_linesize(format, width, p); ++x) f->data[p][y * f->linesize[p] + x] = static_cast<uint8_t>(rng());
    return f;
}

long byte_differences(const AVFrame* a, const AVFrame* b) {
    long n = 0;
    const AVPixelFormat format = static_cast<AVPixelFormat>(a->format);
    for (int p = 0; p < 4 && a->data[p]; ++p)
        for (int y = 0; y < a->height; ++y)
            for (int x = 0; x < av_image_get_linesize(format, a->width, p); ++x)
                n += a->data[p][y * a->linesize[p] + x] != b->data[p][y * b->linesize[p] + x];
    return n;
}

TEST(RgbPlanes, PackedRgbGoesToItsPlanesAndBackUnchanged) {
    for (AVPixelFormat packed : {AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR24, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA, AV_PIX_FMT_ARGB,
                                 AV_PIX_FMT_ABGR, AV_PIX_FMT_RGB0, AV_PIX_FMT_BGR0, AV_PIX_FMT_0RGB, AV_PIX_FMT_0BGR,
                                 AV_PIX_FMT_RGB48LE, AV_PIX_FMT_BGR48LE, AV_PIX_FMT_RGBA64LE, AV_PIX_FMT_BGRA64LE}) {
        const char* name = av_get_pix_fmt_name(packed);
        const AVPixelFormat planar = planar_rgb_for_packed(packed);
        ASSERT_NE(planar, AV_PIX_FMT_NONE) << name;
        const AvFramePtr in = random_frame_of(packed, 37, 11, static_cast<unsigned>(packed));
        AvFramePtr planes = frame_of(planar, 37, 11), back = frame_of(packed, 37, 11);
        repack_rgb(in.get(), planes.get());
        repack_rgb(planes.get(), back.get());
        EXPECT_EQ(byte_differences(in.get(), back.get()), 0) << name;
        EXPECT_EQ(test::frame_differences(in.get(), planes.get()), 0) << name << ": channels read differently";
    }
}

TEST(RgbPlanes, ChannelsAreGreenBlueRedInEveryLayout) {
    AvFramePtr f = frame_of(AV_PIX_FMT_RGB24, 1, 1);
    f->data[0][0] = 10, f->data[0][1] = 20, f->data[0][2] = 30;  // R, G, B
    const std::vector<PlaneView> v = channel_views(f.get());
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0].read(0, 0), 20);
    EXPECT_EQ(v[1].read(0, 0), 30);
    EXPECT_EQ(v[2].read(0, 0), 10);
    AvFramePtr g = frame_of(AV_PIX_FMT_GBRP, 1, 1);
    repack_rgb(f.get(), g.get());
    EXPECT_EQ(g->data[0][0], 20);  // gbrp's plane 0 is G
    EXPECT_EQ(channel_views(g.get())[2].read(0, 0), 10);
}

TEST(RgbPlanes, AFourthSampleMissingFromTheSourceIsOpaque) {
    AvFramePtr f = random_frame_of(AV_PIX_FMT_RGB24, 5, 3, 1), g = frame_of(AV_PIX_FMT_BGRA, 5, 3);
    repack_rgb(f.get(), g.get());
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) EXPECT_EQ(g->data[0][y * g->linesize[0] + 4 * x + 3], 255);
}

TEST(RgbPlanes, OnlyRgbOfOneDepthIsRepacked) {
    EXPECT_TRUE(rgb_repackable(AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR0));
    EXPECT_TRUE(rgb_repackable(AV_PIX_FMT_GBRP16LE, AV_PIX_FMT_RGB48LE));
    EXPECT_FALSE(rgb_repackable(AV_PIX_FMT_RGB24, AV_PIX_FMT_GBRP10LE));
    EXPECT_FALSE(rgb_repackable(AV_PIX_FMT_RGB24, AV_PIX_FMT_YUV444P));
    EXPECT_FALSE(rgb_repackable(AV_PIX_FMT_RGB565LE, AV_PIX_FMT_GBRP));
    EXPECT_FALSE(rgb_repackable(AV_PIX_FMT_RGB48BE, AV_PIX_FMT_GBRP16LE));
    EXPECT_EQ(planar_rgb_for_packed(AV_PIX_FMT_GBRP), AV_PIX_FMT_NONE);
    EXPECT_EQ(planar_rgb_for_packed(AV_PIX_FMT_RGB0), AV_PIX_FMT_GBRAP);
}

}  // namespace
}  // namespace vf
