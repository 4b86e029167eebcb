// FFmpeg 5.1's own bytes for boxblur, unsharp and the 3x3 family (sobel, prewitt, scharr,
// roberts, kirsch, convolution 3x3, whose last row and column FFmpeg reads its own way) under
// --compat ffmpeg: the ffmpeg command (the distribution's 5.1, the reference) and vfilter filter
// the same lossless clips with the same filter string, both write raw frames, and every sample
// must be equal: photographs and noise at odd sizes, 8-bit and 10-bit 4:2:0 (and RGB, per plane), several radii, powers
// and amounts (negative too), FATE's own cases (boxblur=2:1, unsharp=11:11:-1.5:11:11:-1.5) among
// them; on the CPU and, where one is present, on the GPU. Outside --compat ffmpeg vfilter's exact
// arithmetic and its mirror edge stay the default.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

// The photograph (scikit-image's astronaut, Debian's python3-skimage) or VFILTER_TEST_PHOTO.
std::string photo_path() {
    const char* given = std::getenv("VFILTER_TEST_PHOTO");
    return given && *given ? given : "/usr/lib/python3/dist-packages/skimage/data/astronaut.png";
}

// A lossless 2-frame clip of width x height in `format`: the photograph zoomed, or where it is
// missing (and for `noise`) FFmpeg's testsrc2 under heavy noise. testsrc2 rounds its size down to
// even numbers; `exact_size` crops a larger one to the odd size asked for.
CommandResult make_clip(const std::string& path, int width, int height, const std::string& format, bool noise,
                        bool exact_size = false) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (!noise && std::ifstream(photo_path()))
        return run_command({"ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", photo_path(), "-vf",
                            "zoompan=z='1.1+0.05*on':x='iw/3':y='ih/4':d=1:s=" + size + ":fps=25,format=" + format, "-frames:v", "2",
                            "-c:v", "ffv1", path});
    const std::string source_size = std::to_string(width + width % 2) + "x" + std::to_string(height + height % 2);
    const std::string crop = exact_size ? "crop=" + std::to_string(width) + ":" + std::to_string(height) + ":0:0:exact=1," : "";
    return run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=" + (exact_size ? source_size : size) + ":r=25",
                        "-vf", crop + "noise=alls=60:allf=t+u,format=" + format, "-frames:v", "2", "-c:v", "ffv1", path});
}

std::vector<std::string> devices_here() {
    std::vector<std::string> devices = {"cpu"};
    std::string why = "this build has no CUDA backend";
#ifdef VF_HAVE_CUDA
    if (cuda_device_available(&why)) devices.push_back("cuda");
#endif
    if (devices.size() == 1) std::printf("not compared on the GPU: %s\n", why.c_str());
    return devices;
}

// An ffmpeg built with few parts (the GPU machine's static one: no lavfi input, few filters)
// cannot make the clips or be compared with.
bool lacks_a_part(const CommandResult& r) {
    return r.exit_code != 0 && (r.output.find("No such filter") != std::string::npos ||
                                r.output.find("Unknown input format") != std::string::npos);
}

struct Clip {
    int width, height;
    const char* format;
    bool noise;
    bool exact_size = false;
};

// Filters the clips through ffmpeg and vfilter --compat ffmpeg on every device here and counts
// the frames compared per device (-1: this ffmpeg lacks the filter); each frame's samples must be
// equal. `ffmpeg_options` go before ffmpeg's input (-filter_threads 1, for one).
int compare_with_ffmpeg(const std::vector<Clip>& clips, const std::vector<std::string>& filters,
                        const std::vector<std::string>& ffmpeg_options = {}) {
    const std::string dir = temp_dir();
    const std::vector<std::string> devices = devices_here();
    int compared = 0;
    for (const Clip& c : clips) {
        const std::string what_clip = std::to_string(c.width) + "x" + std::to_string(c.height) + " " + c.format + (c.noise ? " noise" : " photo");
        const std::string clip = dir + "/in.mkv";
        const CommandResult made = make_clip(clip, c.width, c.height, c.format, c.noise, c.exact_size);
        if (lacks_a_part(made)) return -1;
        EXPECT_EQ(made.exit_code, 0) << made.output;
        if (made.exit_code != 0) continue;
        for (const std::string& f : filters) {
            const std::string ff_out = dir + "/ff.nut";
            std::vector<std::string> ff_args = {"ffmpeg", "-v", "error", "-y"};
            ff_args.insert(ff_args.end(), ffmpeg_options.begin(), ffmpeg_options.end());
            ff_args.insert(ff_args.end(), {"-i", clip, "-vf", f, "-c:v", "rawvideo", ff_out});
            const CommandResult ff = run_command(ff_args);
            if (lacks_a_part(ff)) return -1;
            EXPECT_EQ(ff.exit_code, 0) << f << ": " << ff.output;
            if (ff.exit_code != 0) continue;
            const auto expected = read_video_frames(ff_out);
            for (const std::string& device : devices) {
                const std::string out = dir + "/vf-" + device + ".nut";
                std::remove(out.c_str());  // nothing left from the last case can pass for this one's output
                const CommandResult vf = run_vfilter(
                    {"--compat", "ffmpeg", "--device", device, "-y", "-i", clip, "-vf", f, "--codec", "rawvideo", out});
                EXPECT_EQ(vf.exit_code, 0) << f << " (" << device << "): " << vf.output;
                const auto got = read_video_frames(out);
                EXPECT_EQ(expected.size(), got.size()) << f << " on " << what_clip << " (" << device << ")";
                for (size_t i = 0; i < expected.size() && i < got.size(); ++i) {
                    std::string where;
                    EXPECT_EQ(frame_differences(expected[i].get(), got[i].get(), false, &where), 0)
                        << f << " on " << what_clip << " (" << device << ") frame " << i << ": " << where;
                    ++compared;
                }
            }
        }
    }
    return compared / static_cast<int>(devices.size());
}

const std::vector<Clip> kClips = {{97, 61, "yuv420p", false},     {97, 61, "yuv420p10le", false}, {320, 241, "yuv420p", false},
                                  {320, 241, "yuv420p10le", false}, {97, 61, "yuv420p", true},      {97, 61, "yuv420p10le", true}};

bool ffmpeg_missing() { return run_command({"ffmpeg", "-version"}).exit_code != 0; }

TEST(FFmpegExact, BoxblurEqualsFfmpegs) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::vector<std::string> filters = {
        "boxblur=2:1",  // FATE's fate-filter-boxblur
        "boxblur",
        "boxblur=luma_radius=min(w\\,h)/8:luma_power=1:chroma_radius=min(cw\\,ch)/8:chroma_power=1",
        "boxblur=5:3:cr=1:cp=4",
        "boxblur=lr=3:lp=1:cr=0",
        "boxblur=luma_radius=1:luma_power=6:chroma_radius=9:chroma_power=2",
    };
    const int compared = compare_with_ffmpeg(kClips, filters);
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi or boxblur";
    EXPECT_EQ(compared, 6 * 6 * 2);
}

TEST(FFmpegExact, UnsharpEqualsFfmpegs) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::vector<std::string> filters = {
        "unsharp=11:11:-1.5:11:11:-1.5",  // FATE's fate-filter-unsharp and -yuv420p10
        "unsharp",
        "unsharp=lx=7:ly=7:la=2.5:cx=5:cy=5:ca=-0.7",  // FFmpeg's short names
        "unsharp=3:9:5:9:3:-2",
        "unsharp=luma_msize_x=13:luma_msize_y=11:luma_amount=0.3:chroma_amount=1.1",
        "unsharp=23:3:1.2:3:5:0.45",
    };
    const int compared = compare_with_ffmpeg(kClips, filters);
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi or unsharp";
    EXPECT_EQ(compared, 6 * 6 * 2);
}

// RGB as FFmpeg filters it: its G, B and R planes (plane 0 = G, as FFmpeg's gbrp stores them; for
// boxblur the luma options apply to G, the chroma ones to B and R), no conversion to YUV. ffmpeg
// writes gbrp for packed input, vfilter the input's own rgb24; their channels are compared.
TEST(FFmpegExact, RgbEqualsFfmpegsPerPlane) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::vector<Clip> clips = {{97, 61, "rgb24", false}, {97, 61, "gbrp", true}, {320, 241, "gbrp10le", false}};
    const std::vector<std::string> filters = {"avgblur=4", "avgblur=sizeX=2:sizeY=3", "boxblur=2:1", "boxblur=lr=3:lp=1:cr=1:cp=2"};
    const int compared = compare_with_ffmpeg(clips, filters);
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi, avgblur or boxblur";
    EXPECT_EQ(compared, 3 * 4 * 2);
}

// FFmpeg 5.1's 3x3 edge (border=ffmpeg, the default under --compat ffmpeg): every sample, the last
// row and column included, on noisy testsrc2 at odd sizes (chroma planes of odd sizes too).
TEST(FFmpegExact, ThreeByThreeFamilyEqualsFfmpegsEdgeIncluded) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::string m = "1 -2 3 -4 5 -6 7 -8 9";
    const std::vector<std::string> filters = {
        "sobel", "prewitt", "scharr", "roberts", "kirsch", "sobel=planes=1:scale=2:delta=10", "kirsch=planes=6:scale=0.5",
        "convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:1:1:1:1:3:3:3:0",
        "convolution=" + m + ":1 2 1 2 4 2 1 2 1:-1 -1 -1 -1 8 -1 -1 -1 -1:0 0 0 0 1 0 0 0 0:1/5:1/16:1:1:128:0:0:0",
    };
    const std::vector<Clip> clips = {{97, 61, "yuv420p", true, true}, {97, 61, "yuv420p10le", true, true}, {35, 19, "yuv420p", true, true},
                                     {35, 19, "yuv420p10le", true, true}, {321, 243, "yuv420p", true, true}};
    const int compared = compare_with_ffmpeg(clips, filters);
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi or one of the 3x3 filters";
    EXPECT_EQ(compared, 5 * 9 * 2);
}

// convolution's row and column modes (a 1-D kernel, mirrored at both ends), 8 and 10 bit, on noisy
// frames of odd sizes. FFmpeg 5.1's column mode filters 16 columns per step, and how it cuts
// columns into threads can leave samples unwritten (above 8 bits, a thread whose columns end
// before column 32) or let the last step run onto the next row: its bytes then depend on its
// thread count (docs/filters.md). One filter thread, on planes at least 32 samples wide, gives its
// convolution unharmed, and that is what vfilter must equal.
const std::vector<Clip> kOddNoiseClips = {{35, 19, "yuv420p", true, true},    {35, 19, "yuv420p10le", true, true},
                                          {97, 61, "yuv420p", true, true},    {97, 61, "yuv420p10le", true, true},
                                          {321, 243, "yuv420p", true, true},  {321, 243, "yuv420p10le", true, true}};

TEST(FFmpegExact, ConvolutionRowModeEqualsFfmpegs) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::vector<std::string> filters = {
        "convolution=0m='1 -2 3 4 5 -6 7':1m='1 4 6 4 1':2m='-1 2 1':0mode=row:1mode=row:2mode=row:0bias=7",
        "convolution=0m='1 2 3 2 1':0mode=row:1m='0 0 1 -4 1 0 0':1mode=row:1bias=512:2m='3 9 3':2mode=row",
    };
    const int compared = compare_with_ffmpeg(kOddNoiseClips, filters);
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi or convolution";
    EXPECT_EQ(compared, 6 * 2 * 2);
}

TEST(FFmpegExact, ConvolutionColumnModeEqualsFfmpegsOneThread) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::vector<std::string> filters = {
        "convolution=0m='1 2 3 4 5 6 7':1m='1 4 6 4 1':2m='1 2 1':0mode=column:1mode=column:2mode=column:0bias=5",
        "convolution=0m='-1 2 -1':0mode=column:0bias=100:1m='1 -2 3 4 5 -6 7':1mode=column:2m='2 3 2':2mode=column",
    };
    const std::vector<Clip> wide_enough = {kOddNoiseClips.begin() + 2, kOddNoiseClips.end()};
    const int compared = compare_with_ffmpeg(wide_enough, filters, {"-filter_threads", "1"});
    if (compared < 0) GTEST_SKIP() << "this ffmpeg lacks lavfi or convolution";
    EXPECT_EQ(compared, 4 * 2 * 2);
    // at 8 bits FFmpeg's column mode is whole on narrow planes too
    const std::vector<Clip> narrow = {kOddNoiseClips[0]};
    EXPECT_EQ(compare_with_ffmpeg(narrow, filters, {"-filter_threads", "1"}), 2 * 2);
}

// Without --compat ffmpeg vfilter keeps its own default, the exact blur rounded once, which on
// FATE's unsharp differs from FFmpeg 5.1's bytes; arithmetic=ffmpeg asks for them by name.
TEST(FFmpegExact, VfiltersOwnDefaultIsUnchangedAndFfmpegsIsAnOption) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::string dir = temp_dir(), clip = dir + "/in.mkv";
    const CommandResult made = make_clip(clip, 97, 61, "yuv420p", true);
    if (lacks_a_part(made)) GTEST_SKIP() << made.output;
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const CommandResult ff = run_command(
        {"ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", "unsharp=11:11:-1.5:11:11:-1.5", "-c:v", "rawvideo", dir + "/ff.nut"});
    if (lacks_a_part(ff)) GTEST_SKIP() << ff.output;
    ASSERT_EQ(ff.exit_code, 0) << ff.output;
    const auto expected = read_video_frames(dir + "/ff.nut");
    ASSERT_FALSE(expected.empty());
    const CommandResult own =
        run_vfilter({"-y", "-i", clip, "-f", "unsharp=11:11:-1.5:11:11:-1.5", "--codec", "rawvideo", "-o", dir + "/own.nut"});
    ASSERT_EQ(own.exit_code, 0) << own.output;
    EXPECT_GT(frame_differences(expected[0].get(), read_video_frames(dir + "/own.nut")[0].get()), 0);
    const CommandResult named = run_vfilter(
        {"-y", "-i", clip, "-f", "unsharp=11:11:-1.5:11:11:-1.5:arithmetic=ffmpeg", "--codec", "rawvideo", "-o", dir + "/named.nut"});
    ASSERT_EQ(named.exit_code, 0) << named.output;
    EXPECT_EQ(frame_differences(expected[0].get(), read_video_frames(dir + "/named.nut")[0].get()), 0);
}

}  // namespace
}  // namespace vf
