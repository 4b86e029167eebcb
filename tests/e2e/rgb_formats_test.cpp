// RGB filtered as RGB through the command line on the CPU: every RGB format, packed and planar, 8
// to 16 bits, keeps its format, gets the filter on each of its G, B and R planes (vfilter's
// defaults too: a bare sobel or unsharp filters every colour plane, not a luma) and passes alpha
// and rgb0's padding through; an encoder without RGB gets the format ffmpeg would give it.
#include <gtest/gtest.h>

#include <iterator>

#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/rgb_check.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"

namespace vf {
namespace {

using namespace test;

TEST(RgbFormats, EveryFormatIsFilteredPerColourPlaneAndKeptOnTheCpu) {
    // Under a sanitizer (several times slower) a third of the product: each format with two of
    // the filters in turn, every filter on a third of the formats; the release run checks them all.
    const char* const filters[] = {"sobel", "gaussian=sigma=1.3", "unsharp=5:5:1.5", "box=radius=2", "emboss", "kirsch"};
    const std::vector<AVPixelFormat>& formats = rgb_formats();
    for (size_t f = 0; f < formats.size(); ++f)
        for (size_t k = 0; k < std::size(filters); ++k)
            if (!kSanitizerBuild || (f + k) % 3 == 0) {
                EXPECT_EQ(check_rgb_through_cli(formats[f], filters[k], "cpu"), 3) << filters[k] << " on " << av_get_pix_fmt_name(formats[f]);
            }
}

TEST(RgbFormats, FfmpegsDefaultsFilterEveryColourPlaneToo) {
    for (AVPixelFormat format : {AV_PIX_FMT_RGB24, AV_PIX_FMT_BGRA, AV_PIX_FMT_GBRP10LE, AV_PIX_FMT_GBRAP16LE})
        for (const char* filter : {"sobel", "avgblur=sizeX=2", "unsharp=5:5:1.5", "boxblur=2:1"})
            EXPECT_EQ(check_rgb_through_cli(format, filter, "cpu", {"--compat", "ffmpeg"}), 3)
                << filter << " on " << av_get_pix_fmt_name(format);
}

// An encoder that does not take the input's format gets the one ffmpeg itself picks for this
// input and encoder: another RGB layout, samples moved (ffv1 writes rgb24 and gbrp as bgr0, png
// gbrp as rgb24), or YUV converted once at the encoder (libx264).
TEST(RgbFormats, AnEncoderWithoutTheFormatGetsTheOneFfmpegPicks) {
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::pair<AVPixelFormat, const char*> cases[] = {
        {AV_PIX_FMT_RGB24, "libx264"}, {AV_PIX_FMT_RGB24, "ffv1"}, {AV_PIX_FMT_GBRP, "ffv1"}, {AV_PIX_FMT_GBRAP, "ffv1"},
        {AV_PIX_FMT_GBRP, "png"}};
    for (const auto& [format, codec] : cases) {
        const std::string what = std::string(av_get_pix_fmt_name(format)) + " to " + codec;
        const std::string dir = temp_dir(), clip = write_rgb_clip(dir, format);
        const CommandResult ff = run_command({"ffmpeg", "-v", "error", "-y", "-i", clip, "-c:v", codec, dir + "/ff.nut"});
        ASSERT_EQ(ff.exit_code, 0) << what << ": " << ff.output;
        for (const char* c : {codec, "rawvideo"}) {
            const CommandResult vf = run_vfilter({"-y", "-i", clip, "-f", "sobel", "--codec", c, "-o", dir + "/vf-" + c + ".nut"});
            ASSERT_EQ(vf.exit_code, 0) << what << ": " << vf.output;
        }
        const std::string out = dir + "/vf-" + codec + ".nut";
        EXPECT_EQ(summarize(out).format, summarize(dir + "/ff.nut").format) << what;
        const auto got = read_video_frames(out), raw = read_video_frames(dir + "/vf-rawvideo.nut");
        ASSERT_EQ(got.size(), 3u) << what;
        ASSERT_EQ(raw.size(), 3u) << what;
        // Lossless RGB layouts hold the filtered samples themselves.
        for (size_t i = 0; i < got.size() && std::string(codec) != "libx264"; ++i) {
            EXPECT_EQ(frame_differences(got[i].get(), raw[i].get()), 0) << what << " frame " << i;
        }
    }
}

// FFmpeg filters RGB per plane too (its planes=15): under --compat ffmpeg the 3x3 gradients equal
// the system ffmpeg's bytes on every sample but the last row and column (FFmpeg 5.1's 3x3 edge
// quirk, docs/filters.md), on packed and planar RGB, 8 and 10 bits.
TEST(RgbFormats, GradientsEqualFfmpegsBesideTheLastRowAndColumn) {
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    for (AVPixelFormat format : {AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR0, AV_PIX_FMT_GBRP, AV_PIX_FMT_GBRP10LE}) {
        const std::string dir = temp_dir(), clip = write_rgb_clip(dir, format);
        for (const char* filter : {"sobel", "prewitt", "scharr", "roberts", "sobel=planes=5:scale=2"}) {
            const std::string what = std::string(filter) + " on " + av_get_pix_fmt_name(format);
            const CommandResult ff = run_command({"ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", filter, "-c:v", "rawvideo", dir + "/ff.nut"});
            if (ff.exit_code != 0 && ff.output.find("No such filter") != std::string::npos) GTEST_SKIP() << ff.output;
            ASSERT_EQ(ff.exit_code, 0) << what << ": " << ff.output;
            const CommandResult vf = run_vfilter({"--compat", "ffmpeg", "-y", "-i", clip, "-vf", filter, "--codec", "rawvideo", dir + "/vf.nut"});
            ASSERT_EQ(vf.exit_code, 0) << what << ": " << vf.output;
            const auto expected = read_video_frames(dir + "/ff.nut"), got = read_video_frames(dir + "/vf.nut");
            ASSERT_EQ(expected.size(), 3u) << what;
            ASSERT_EQ(got.size(), 3u) << what;
            EXPECT_EQ(summarize(dir + "/vf.nut").format, format) << what;
            for (size_t i = 0; i < got.size(); ++i) {
                std::string where;
                EXPECT_EQ(frame_differences(expected[i].get(), got[i].get(), true, &where), 0) << what << " frame " << i << ": " << where;
            }
        }
    }
}

// ffmpeg's own line with -pix_fmt naming the RGB input's format: taken, and that format written.
TEST(RgbFormats, FfmpegsLineKeepsRgbWithPixFmt) {
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.nut";
    clip.width = 97;
    clip.height = 61;
    clip.format = AV_PIX_FMT_RGB24;
    clip.frames = 2;
    clip.video_codec = "rawvideo";
    clip.audio = false;
    write_clip(clip);
    const CommandResult r = run_command({VFILTER_BIN, "ffmpeg", "-v", "error", "-y", "-i", clip.path, "-vf", "avgblur=4", "-pix_fmt", "rgb24",
                                          "-c:v", "rawvideo", dir + "/out.nut"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(summarize(dir + "/out.nut").format, AV_PIX_FMT_RGB24);
    EXPECT_EQ(read_video_frames(dir + "/out.nut").size(), 2u);
}

}  // namespace
}  // namespace vf
