// Preview pictures (encode/jpeg_encoder.cpp): their size from the asked width and the display
// aspect, and their content, decoded back, against what each block of the frame holds, for every
// pixel format the pipeline carries, limited and full range, odd sizes, scaled and not.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include "common/error.hpp"
#include "encode/jpeg_encoder.hpp"
#include "support/jpeg_decode.hpp"

namespace vf {
namespace {

TEST(JpegSize, FollowsTheAskedWidthAndTheDisplayAspect) {
    auto size = [](int w, int h, AVRational sar, int asked) {
        const JpegSize s = jpeg_size(w, h, sar, asked);
        return std::to_string(s.width) + "x" + std::to_string(s.height);
    };
    EXPECT_EQ(size(1920, 1080, {0, 1}, 480), "480x270");
    EXPECT_EQ(size(1920, 1080, {1, 1}, 4000), "1920x1080") << "never wider than the frame";
    EXPECT_EQ(size(320, 240, {0, 1}, 161), "162x122") << "both sides even";
    EXPECT_EQ(size(720, 576, {16, 15}, 2000), "768x576") << "anamorphic frames at their display width";
    EXPECT_EQ(size(720, 576, {16, 15}, 384), "384x288");
    EXPECT_EQ(size(1920, 1080, {0, 1}, 1), "16x16") << "at least 16 by 16";
    EXPECT_EQ(size(31, 17, {0, 1}, 480), "32x18");
}

struct Format {
    AVPixelFormat format;
    bool full_range;
    bool limited_grey = false;  // a grey frame marked limited range
};

// A frame of `format` whose luma is made of 16x16 blocks of random levels (limited range unless
// full) and whose chroma is neutral; `levels` gets each block's level as 8 bits.
AvFramePtr block_frame(AVPixelFormat format, int width, int height, bool full, unsigned seed, std::vector<int>& levels) {
    AvFramePtr f = make_frame();
    f->format = format;
    f->width = width;
    f->height = height;
    if (av_frame_get_buffer(f.get(), 0) < 0) return nullptr;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    const int depth = d->comp[0].depth, shift = d->comp[0].shift;
    const int bx = (width + 15) / 16, by = (height + 15) / 16;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> level(full ? 0 : 16, full ? 255 : 235);
    levels.resize(static_cast<size_t>(bx) * by);
    for (int& l : levels) l = level(rng);
    auto put = [&](int plane, int x, int y, int v8, int step) {
        const int v = (depth > 8 ? v8 << (depth - 8) : v8) << shift;
        uint8_t* row = f->data[plane] + static_cast<ptrdiff_t>(y) * f->linesize[plane];
        if (depth > 8) reinterpret_cast<uint16_t*>(row)[x * step] = static_cast<uint16_t>(v);
        else row[x * step] = static_cast<uint8_t>(v);
    };
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) put(0, x, y, levels[static_cast<size_t>(y / 16) * bx + x / 16], 1);
    if (d->nb_components > 1) {
        const int cw = AV_CEIL_RSHIFT(width, d->log2_chroma_w), ch = AV_CEIL_RSHIFT(height, d->log2_chroma_h);
        const bool interleaved = d->comp[1].plane == d->comp[2].plane;
        for (int y = 0; y < ch; ++y)
            for (int x = 0; x < cw; ++x) {
                if (interleaved) {
                    put(1, 2 * x, y, 128, 1);
                    put(1, 2 * x + 1, y, 128, 1);
                } else {
                    put(1, x, y, 128, 1);
                    put(2, x, y, 128, 1);
                }
            }
    }
    if (full) f->color_range = AVCOL_RANGE_JPEG;
    return f;
}

TEST(JpegEncoder, PicturesShowEachBlockAtFullRangeForEveryFormat) {
    const std::vector<Format> formats = {
        {AV_PIX_FMT_YUV420P, false}, {AV_PIX_FMT_YUV420P, true}, {AV_PIX_FMT_YUV422P, false}, {AV_PIX_FMT_YUV444P, false},
        {AV_PIX_FMT_YUVJ420P, true}, {AV_PIX_FMT_NV12, false}, {AV_PIX_FMT_GRAY8, false}, {AV_PIX_FMT_YUV420P10LE, false},
        {AV_PIX_FMT_YUV444P10LE, false}, {AV_PIX_FMT_P010LE, false}, {AV_PIX_FMT_GRAY10LE, false},
        {AV_PIX_FMT_GRAY8, false, true}};
    const std::vector<std::pair<int, int>> sizes = {{160, 96}, {99, 67}};
    unsigned seed = 7;
    for (const Format& fmt : formats)
        for (const auto& [w, h] : sizes)
            for (const int asked : {w, w / 2}) {
                const std::string what = std::string(av_get_pix_fmt_name(fmt.format)) + (fmt.full_range ? " full" : "") + (fmt.limited_grey ? " marked limited" : "") + " " +
                                         std::to_string(w) + "x" + std::to_string(h) + " at width " + std::to_string(asked);
                std::vector<int> levels;
                AvFramePtr frame = block_frame(fmt.format, w, h, fmt.full_range && !fmt.limited_grey, ++seed, levels);
                ASSERT_TRUE(frame) << what;
                if (fmt.limited_grey) frame->color_range = AVCOL_RANGE_MPEG;
                const std::string jpeg = encode_jpeg(*frame, asked, 2);
                AvFramePtr pic = test::decode_jpeg(jpeg);
                ASSERT_TRUE(pic) << what << ": the JPEG does not decode";
                const JpegSize size = jpeg_size(w, h, {0, 1}, asked);
                ASSERT_EQ(pic->width, size.width) << what;
                ASSERT_EQ(pic->height, size.height) << what;
                // YUV is limited range unless marked (or yuvj); grey is full range unless marked.
                const bool grey = fmt.format == AV_PIX_FMT_GRAY8 || fmt.format == AV_PIX_FMT_GRAY10LE;
                const bool limited = grey ? fmt.limited_grey : !fmt.full_range && fmt.format != AV_PIX_FMT_YUVJ420P;
                const int bx = (w + 15) / 16;
                int worst = 0, worst_chroma = 0;
                for (int y0 = 0; y0 + 16 <= h; y0 += 16)
                    for (int x0 = 0; x0 + 16 <= w; x0 += 16) {
                        const int level = levels[static_cast<size_t>(y0 / 16) * bx + x0 / 16];
                        const int want = limited ? std::clamp((level - 16) * 255 / 219, 0, 255) : level;
                        // The block's centre, where neither scaling nor JPEG's blocks reach the neighbours.
                        const int x = (x0 + 8) * pic->width / w, y = (y0 + 8) * pic->height / h;
                        const int got = pic->data[0][static_cast<ptrdiff_t>(y) * pic->linesize[0] + x];
                        worst = std::max(worst, std::abs(got - want));
                        const int cx = x >> 1, cy = y >> 1;  // 4:2:0 JPEG
                        for (int p : {1, 2})
                            worst_chroma = std::max(worst_chroma, std::abs(pic->data[p][static_cast<ptrdiff_t>(cy) * pic->linesize[p] + cx] - 128));
                    }
                EXPECT_LE(worst, 12) << what << ": a block's level is off by " << worst;
                EXPECT_LE(worst_chroma, 6) << what << ": grey came out coloured by " << worst_chroma;
            }
}

TEST(JpegEncoder, FramesWithoutPicturesAreErrorsNotCrashes) {
    AvFramePtr f = make_frame();
    f->format = AV_PIX_FMT_YUV420P;
    f->width = 64;
    f->height = 48;
    ASSERT_EQ(av_frame_get_buffer(f.get(), 0), 0);
    std::memset(f->data[0], 16, static_cast<size_t>(f->linesize[0]) * 48);
    EXPECT_FALSE(encode_jpeg(*f, 64).empty());
    f->format = AV_PIX_FMT_NONE;
    EXPECT_THROW(encode_jpeg(*f, 64), Error);
}

}  // namespace
}  // namespace vf
