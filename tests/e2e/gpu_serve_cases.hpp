// What the GPU serve tests share: a stream case (filter, format, size, codec), its clip, and the
// check that each served output equals the single-stream command's output bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"

namespace vf::test {
struct ServedCase {
    std::string name, filter;
    AVPixelFormat format;
    int width, height;
    std::string codec = "ffv1";  // libx264: NVDEC decodes it
};

// The case's clip of `frames` frames in dir, named after it (a key frame every `gop` frames; 0: the encoder's choice).
inline ClipSpec write_case_clip(const std::string& dir, const ServedCase& c, unsigned seed, int gop = 0, int frames = 24) {
    ClipSpec clip;
    clip.path = dir + "/" + c.name + ".mkv";
    clip.width = c.width;
    clip.height = c.height;
    clip.format = c.format;
    clip.frames = frames;
    clip.seed = seed;
    clip.video_codec = c.codec;
    clip.gop_size = gop;
    write_clip(clip);
    return clip;
}

// Each case's served output (NAME-served.mkv in dir) holds its `frames` frames, each equal to the
// single-stream command's (NAME-single.mkv) bit for bit.
inline void expect_served_equal_single(const std::string& dir, const std::vector<ServedCase>& cases, size_t frames = 24) {
    for (const ServedCase& c : cases) {
        const auto served = read_video_frames(dir + "/" + c.name + "-served.mkv");
        const auto single = read_video_frames(dir + "/" + c.name + "-single.mkv");
        ASSERT_EQ(served.size(), frames) << c.name;
        ASSERT_EQ(single.size(), frames) << c.name;
        for (size_t i = 0; i < served.size(); ++i) {
            std::string where;
            EXPECT_EQ(frame_differences(served[i].get(), single[i].get(), false, &where), 0) << c.name << " frame " << i << " " << where;
        }
    }
}

}  // namespace vf::test
