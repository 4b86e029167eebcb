// Decoding into caller-provided buffers (what vfilter does with page-locked memory on the GPU
// path) must give exactly the frames FFmpeg's own buffers give, with frame threading on.
#include <gtest/gtest.h>

#include <atomic>

#include "decode/file_source.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

std::atomic<int> allocations{0};
AVBufferRef* counting_alloc(size_t size) {
    ++allocations;
    return av_buffer_allocz(size);
}

std::vector<AvFramePtr> decode_all(FileSourceOptions o) {
    FileSource src(o);
    std::vector<AvFramePtr> frames;
    while (auto item = src.read())
        if (auto* v = std::get_if<VideoFrame>(&*item)) frames.push_back(std::move(v->frame));
    EXPECT_EQ(src.host_copies(), 0);
    return frames;
}

class DecoderBuffersTest : public ::testing::TestWithParam<std::pair<const char*, AVPixelFormat>> {};

TEST_P(DecoderBuffersTest, CallerBuffersDecodeIdentically) {
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.video_codec = GetParam().first;
    clip.format = GetParam().second;
    clip.width = 202;  // not multiples of 16: the layout must follow the decoder's alignment rules
    clip.height = 118;
    clip.frames = 30;
    clip.audio = false;
    write_clip(clip);
    FileSourceOptions o;
    o.url = clip.path;
    o.decoder_threads = 4;
    const auto plain = decode_all(o);
    allocations = 0;
    o.frame_alloc = counting_alloc;
    const auto custom = decode_all(o);
    EXPECT_GT(allocations.load(), 0) << "the decoder did not use the caller's allocator";
    ASSERT_EQ(plain.size(), custom.size());
    ASSERT_EQ(plain.size(), 30u);
    for (size_t i = 0; i < plain.size(); ++i) {
        std::string where;
        EXPECT_EQ(frame_differences(plain[i].get(), custom[i].get(), false, &where), 0) << "frame " << i << " " << where;
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, DecoderBuffersTest,
                         ::testing::Values(std::make_pair("libx264", AV_PIX_FMT_YUV420P),
                                           std::make_pair("ffv1", AV_PIX_FMT_YUV422P10LE),
                                           std::make_pair("mpeg4", AV_PIX_FMT_YUV420P)));

}  // namespace
}  // namespace vf
