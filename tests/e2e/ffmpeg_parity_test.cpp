// Same options, same output as FFmpeg: vfilter and the ffmpeg command line filter the same
// lossless clip and must agree pixel for pixel. FFmpeg's 3x3 filters mirror the last row and
// column differently from its 5x5+ filters (they repeat the edge pixel there), so for 3x3 the
// last row and column of each plane are left out; everything else must match exactly.
// FFmpeg 5.1 ignores a user's rdiv (param_init resets it to 1/sum before use), so these cases
// leave rdiv at its default; vfilter honours rdiv (tested against the reference elsewhere).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif
#include "media/frame.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

struct ParityCase {
    const char* name;
    const char* ffmpeg_filter;
    const char* vfilter_filter;
    bool three_by_three;
    AVPixelFormat format;
    // vfilter runs FFmpeg's string with --compat ffmpeg: ffmpeg_filter itself, unchanged, or where
    // vfilter_filter is given, that (FFmpeg's string with its rdiv values set to 0, FFmpeg 5.1's
    // actual behaviour: it ignores rdiv; docs/filters.md).
    bool compat = false;
};

class FFmpegParity : public ::testing::TestWithParam<ParityCase> {};

// A small lossless clip of the test pattern, 75x41 (odd sizes), 3 frames.
std::string small_clip(const std::string& dir, AVPixelFormat format = AV_PIX_FMT_YUV420P) {
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 75;
    clip.height = 41;
    clip.frames = 3;
    clip.format = format;
    clip.audio = false;
    write_clip(clip);
    return clip.path;
}

// How many samples of two outputs are equal and within 1 (the last row and column of each plane
// left out with skip_last); samples counts what was compared.
struct Closeness {
    long samples = 0, equal = 0, within_one = 0;
    double squared = 0;  // the sum of squared differences, relative to the peak squared
    double psnr() const { return squared == 0 ? 99.0 : 10.0 * std::log10(samples / squared); }
};
Closeness compare(const std::vector<AvFramePtr>& a, const std::vector<AvFramePtr>& b, bool skip_last) {
    Closeness r;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const std::vector<PlaneView> va = channel_views(a[i].get()), vb = channel_views(b[i].get());
        for (size_t p = 0; p < va.size(); ++p)
            for (int y = 0; y < va[p].height - (skip_last ? 1 : 0); ++y)
                for (int x = 0; x < va[p].width - (skip_last ? 1 : 0); ++x) {
                    const int d = std::abs(va[p].read(x, y) - vb[p].read(x, y));
                    ++r.samples;
                    r.equal += d == 0;
                    r.within_one += d <= 1;
                    r.squared += static_cast<double>(d) * d / (static_cast<double>(va[p].peak()) * va[p].peak());
                }
    }
    return r;
}

TEST_P(FFmpegParity, SameOutput) {
    const ParityCase c = GetParam();
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = small_clip(dir, c.format);
    const CommandResult ff = run_command({"ffmpeg", "-v", "error", "-i", clip.path, "-vf", c.ffmpeg_filter, "-c:v", "ffv1",
                                         dir + "/ff.mkv"});
    // An ffmpeg built with few filters (the GPU machine's static one) cannot be compared with.
    if (ff.exit_code != 0 && ff.output.find("No such filter") != std::string::npos)
        GTEST_SKIP() << "this ffmpeg has no such filter: " << ff.output;
    ASSERT_EQ(ff.exit_code, 0) << ff.output;
    const CommandResult vf =
        c.compat ? run_vfilter({"--compat", "ffmpeg", "-i", clip.path, "-vf", *c.vfilter_filter ? c.vfilter_filter : c.ffmpeg_filter,
                                "--codec", "ffv1", dir + "/vf.mkv"})
                 : run_vfilter({"-i", clip.path, "-f", c.vfilter_filter, "--codec", "ffv1", "-o", dir + "/vf.mkv"});
    ASSERT_EQ(vf.exit_code, 0) << vf.output;
    const auto a = read_video_frames(dir + "/ff.mkv"), b = read_video_frames(dir + "/vf.mkv");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        std::string where;
        EXPECT_EQ(frame_differences(a[i].get(), b[i].get(), c.three_by_three, &where), 0) << c.name << " frame " << i << " " << where;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Filters, FFmpegParity,
    ::testing::Values(
        ParityCase{"sobel", "sobel", "sobel=planes=all", true, AV_PIX_FMT_YUV420P},
        ParityCase{"sobel_scaled_10bit", "sobel=scale=0.7:delta=12", "sobel=planes=all:scale=0.7:delta=12", true,
                   AV_PIX_FMT_YUV420P10LE},
        ParityCase{"prewitt_luma", "prewitt=planes=1", "prewitt=planes=luma:rest=copy", true, AV_PIX_FMT_YUV420P},
        ParityCase{"scharr", "scharr", "scharr=planes=all", true, AV_PIX_FMT_YUV444P},
        ParityCase{"conv3x3", "convolution=0m='0 -1 0 -1 5 -1 0 -1 0':1m='1 2 1 2 4 2 1 2 1':2m='1 1 1 1 1 1 1 1 1':2bias=3",
                   "convolution=0m=0 -1 0 -1 5 -1 0 -1 0:1m=1 2 1 2 4 2 1 2 1:2m=1 1 1 1 1 1 1 1 1:2bias=3", true,
                   AV_PIX_FMT_YUV420P},
        ParityCase{"conv5x5", "convolution=0m='1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25':0bias=100",
                   "convolution=0m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:0bias=100",
                   false, AV_PIX_FMT_YUV420P},
        ParityCase{"conv7x7_10bit", "convolution=0m='1 1 1 1 1 1 1 1 2 2 2 2 2 1 1 2 3 3 3 2 1 1 2 3 4 3 2 1 1 2 3 3 3 2 1 1 2 2 2 2 2 1 1 1 1 1 1 1 1'",
                   "convolution=0m=1 1 1 1 1 1 1 1 2 2 2 2 2 1 1 2 3 3 3 2 1 1 2 3 4 3 2 1 1 2 3 3 3 2 1 1 2 2 2 2 2 1 1 1 1 1 1 1 1",
                   false, AV_PIX_FMT_YUV422P10LE},
        ParityCase{"row", "convolution=0m='1 2 3 4 5 6 7':0mode=row", "convolution=0m=1 2 3 4 5 6 7:0mode=row", false,
                   AV_PIX_FMT_YUV420P},
        ParityCase{"column", "convolution=0m='1 4 6 4 1':0mode=column:0bias=5",
                   "convolution=0m=1 4 6 4 1:0mode=column:0bias=5", false, AV_PIX_FMT_YUV420P},
        // FFmpeg's own filter strings, unchanged (the examples of its filter documentation), through
        // --compat ffmpeg: values by position, expressions, FFmpeg's defaults.
        ParityCase{"doc_sharpen", "convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0",
                   "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"doc_blur", "convolution=1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1/9:1/9:1/9:1/9",
                   "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"doc_edge_enhance", "convolution=0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:5:1:1:1:0:128:128:128",
                   "convolution=0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0:1:1:1:0:128:128:128", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"doc_edge_detect", "convolution=0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:5:5:5:1:0:128:128:128",
                   "convolution=0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:0 1 0 1 -4 1 0 1 0:0:0:0:1:0:128:128:128", true, AV_PIX_FMT_YUV422P10LE, true},
        ParityCase{"doc_laplacian_diagonals", "convolution=1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:5:5:5:1:0:128:128:0",
                   "convolution=1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:1 1 1 1 -8 1 1 1 1:0:0:0:1:0:128:128:0", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"doc_emboss", "convolution=-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2",
                   "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"sobel_ffmpeg_defaults", "sobel", "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"sobel_by_position", "sobel=1:0.5:3", "", true, AV_PIX_FMT_YUV422P10LE, true},
        ParityCase{"roberts", "roberts", "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"roberts_10bit_scaled", "roberts=planes=3:scale=2*0.4:delta=10", "", true, AV_PIX_FMT_YUV422P10LE, true},
        ParityCase{"kirsch", "kirsch", "", true, AV_PIX_FMT_YUV420P, true},
        ParityCase{"kirsch_10bit_by_position", "kirsch=1:0.3:7", "", true, AV_PIX_FMT_YUV422P10LE, true}),
    [](const ::testing::TestParamInfo<ParityCase>& i) { return std::string(i.param.name); });

// A one-filter string with `options` added ("unsharp" + "a=b": "unsharp=a=b").
std::string with_options(const std::string& filter, const std::string& options) {
    if (options.empty()) return filter;
    return filter + (filter.find('=') == std::string::npos ? "=" : ":") + options;
}

// FFmpeg's unsharp rounds its blur and floors its product in fixed point; vfilter's own arithmetic
// (arithmetic=exact) computes the same linear filter exactly and rounds once (docs/filters.md):
// for amounts up to 1.5 every sample within 1 of FFmpeg's, most of them equal. (--compat ffmpeg
// alone gives FFmpeg's bytes: ffmpeg_exact_test.cpp.)
TEST(FFmpegParity, UnsharpWithinOne) {
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = small_clip(dir);
    // The first two are the examples of FFmpeg's documentation. An amount beyond about 1.5
    // magnifies FFmpeg's rounded blur past 1 (docs/filters.md: 97% within 1 at 2.5 on footage).
    const std::pair<const char*, double> cases[] = {{"unsharp=luma_msize_x=7:luma_msize_y=7:luma_amount=2.5", 0.95},
                                                    {"unsharp=7:7:-2:7:7:-2", 0.95},
                                                    {"unsharp", 1.0},
                                                    {"unsharp=5:5:-1.5:5:5:0.8", 1.0},
                                                    {"unsharp=3:5:0.8:3:3:0.4", 1.0}};
    for (const auto& [f, within] : cases) {
        const CommandResult ff = run_command({"ffmpeg", "-v", "error", "-y", "-i", clip.path, "-vf", f, "-c:v", "ffv1", dir + "/ff.mkv"});
        if (ff.exit_code != 0 && ff.output.find("No such filter") != std::string::npos) GTEST_SKIP() << ff.output;
        ASSERT_EQ(ff.exit_code, 0) << ff.output;
        const CommandResult vf = run_vfilter({"--compat", "ffmpeg", "-y", "-i", clip.path, "-vf", with_options(f, "arithmetic=exact"),
                                              "--codec", "ffv1", dir + "/vf.mkv"});
        ASSERT_EQ(vf.exit_code, 0) << vf.output;
        const auto a = read_video_frames(dir + "/ff.mkv"), b = read_video_frames(dir + "/vf.mkv");
        ASSERT_EQ(a.size(), b.size());
        const Closeness r = compare(a, b, false);
        EXPECT_GE(r.within_one, within * r.samples) << f << ": " << r.samples - r.within_one << " samples more than 1 from FFmpeg's";
        EXPECT_GE(r.equal * 2, r.samples) << f << ": fewer than half the samples equal FFmpeg's";
    }
}

// The photograph the tests filter: scikit-image's astronaut (Debian's python3-skimage), or the
// file VFILTER_TEST_PHOTO names (the GPU machine has no python3-skimage).
std::string test_photo() {
    const char* given = std::getenv("VFILTER_TEST_PHOTO");
    return given && *given ? given : "/usr/lib/python3/dist-packages/skimage/data/astronaut.png";
}

// A lossless clip of the photograph panned and zoomed with noise: width x height, `frames`
// frames, in `format`.
CommandResult photograph_clip(const std::string& path, int width, int height, int frames, const std::string& format) {
    return run_command({"ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", test_photo(), "-vf",
                        "zoompan=z='1.05+0.02*on':x='iw/2-(iw/zoom/2)+on*7':y='ih/2-(ih/zoom/2)+on*3':d=1:s=" +
                            std::to_string(width) + "x" + std::to_string(height) + ":fps=30,noise=alls=12:allf=t+u,format=" + format,
                        "-frames:v", std::to_string(frames), "-c:v", "ffv1", path});
}

// FFmpeg's avgblur through --compat ffmpeg: its strings unchanged, every sample equal to the ffmpeg
// command's (its edge rule, its truncated means, its planes and sizeY rules, its radii cut to half
// the chroma plane), on photographs of odd sizes, 8-bit 4:2:0 and 10-bit 4:2:2, on the CPU and,
// where one is present, on the GPU.
TEST(FFmpegParity, AvgblurExactOnPhotographs) {
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    if (!std::getenv("VFILTER_TEST_CLIPS") && !std::ifstream(test_photo()))
        GTEST_SKIP() << test_photo() << " is missing (python3-skimage: scripts/install_deps.sh --test)";
    const std::string dir = temp_dir();
    std::vector<std::string> devices = {"cpu"};
    std::string why = "this build has no CUDA backend";
#ifdef VF_HAVE_CUDA
    if (cuda_device_available(&why)) devices.push_back("cuda");
#endif
    if (devices.size() == 1) std::printf("avgblur on the GPU not compared here: %s\n", why.c_str());
    struct Clip {
        int width, height;
        const char* format;
    };
    // 639x359: the case; 75x41: a picture small enough that FFmpeg cuts the radii.
    const Clip clips[] = {{639, 359, "yuv420p"}, {639, 359, "yuv422p10le"}, {75, 41, "yuv420p"}, {333, 197, "yuv422p10le"}};
    const char* filters[] = {"avgblur=sizeX=4:sizeY=2", "avgblur", "avgblur=sizeX=3", "avgblur=2:1", "avgblur=sizeX=5:planes=6:sizeY=1",
                             "avgblur=1:7:9", "avgblur=sizeX=30", "avgblur=sizeX=63:sizeY=40"};
    int compared = 0;
    for (const Clip& c : clips) {
        const std::string name = std::to_string(c.width) + "x" + std::to_string(c.height) + "_" + c.format + ".mkv";
        std::string clip = dir + "/" + name;
        if (const char* carried = std::getenv("VFILTER_TEST_CLIPS")) {
            // The GPU machine's minimal ffmpeg can neither read the photograph nor zoom it: the
            // same clips, made by photograph_clip elsewhere, are brought along.
            clip = std::string(carried) + "/" + name;
            ASSERT_TRUE(std::ifstream(clip)) << clip;
        } else {
            const CommandResult made = photograph_clip(clip, c.width, c.height, 2, c.format);
            ASSERT_EQ(made.exit_code, 0) << made.output;
        }
        for (const char* f : filters) {
            const CommandResult ff = run_command({"ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", f, "-c:v", "ffv1", dir + "/ff.mkv"});
            if (ff.exit_code != 0 && ff.output.find("No such filter") != std::string::npos) GTEST_SKIP() << ff.output;
            ASSERT_EQ(ff.exit_code, 0) << ff.output;
            const auto a = read_video_frames(dir + "/ff.mkv");
            for (const std::string& device : devices) {
                const std::string out = dir + "/vf-" + device + ".mkv";
                std::remove(out.c_str());  // nothing left from the last case can pass for this one's output
                const CommandResult vf = run_vfilter(
                    {"--compat", "ffmpeg", "--device", device, "-y", "-i", clip, "-vf", f, "--codec", "ffv1", out});
                ASSERT_EQ(vf.exit_code, 0) << vf.output;
                const auto b = read_video_frames(out);
                ASSERT_EQ(a.size(), b.size()) << f;
                for (size_t i = 0; i < a.size(); ++i) {
                    std::string where;
                    EXPECT_EQ(frame_differences(a[i].get(), b[i].get(), false, &where), 0)
                        << f << " on " << c.width << "x" << c.height << " " << c.format << " (" << device << ") frame " << i << " " << where;
                }
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 4 * 8 * static_cast<int>(devices.size()));
}

// Real footage: a photograph (scikit-image's astronaut, from Debian's python3-skimage) panned and
// zoomed with noise, 333x197, 8-bit 4:2:0 and 10-bit 4:2:2. FFmpeg's strings, unchanged, through
// --compat ffmpeg: at least 99.9% of samples within 1 of the ffmpeg command's, the last row and
// column of 3x3 filters left out (FFmpeg 5.1's edge rule there, docs/filters.md). boxblur and
// unsharp are measured in vfilter's own arithmetic (`exact` appended to vfilter's string: under
// --compat ffmpeg alone they give FFmpeg's bytes, ffmpeg_exact_test.cpp).
TEST(FFmpegParity, PhotographsWithinOne) {
    const std::string photo = test_photo();
    if (run_command({"ffmpeg", "-version"}).exit_code != 0) GTEST_SKIP() << "the ffmpeg command is not installed";
    if (!std::ifstream(photo)) GTEST_SKIP() << photo << " is missing (python3-skimage: scripts/install_deps.sh --test)";
    const std::string dir = temp_dir();
    struct Case {
        const char* filter;
        bool three_by_three;
        bool ten_bit_too;
        // FFmpeg's approximations and edge rules (docs/filters.md): what share is within 1, and
        // the PSNR against ffmpeg's output, at least (8-bit 4:2:0, then 10-bit 4:2:2).
        double within_one[2] = {0.999, 0.999};
        double psnr[2] = {0, 0};
        const char* exact = "";  // options added to vfilter's string: vfilter's own arithmetic
    };
    const char* kExactBox = "arithmetic=exact:border=mirror";
    const char* kExactUnsharp = "arithmetic=exact";
    const Case cases[] = {
        {"convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0", true, true},
        {"convolution=1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1/9:1/9:1/9:1/9", true, true},
        {"convolution=-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2:-2 -1 0 -1 1 1 0 1 2", true, true},
        {"convolution=0m='1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1'", false, true},
        {"sobel", true, true},
        {"prewitt=planes=1:scale=2", true, true},
        {"scharr", true, true},
        {"roberts", true, true},
        {"kirsch", true, true},
        {"kirsch=planes=1:scale=0.25", true, true},
        {"unsharp", false, false, {0.999, 0.999}, {0, 0}, kExactUnsharp},
        {"unsharp=3:5:0.8:3:3:0.4", false, false, {0.999, 0.999}, {0, 0}, kExactUnsharp},
        {"unsharp=luma_msize_x=7:luma_msize_y=7:luma_amount=2.5", false, false, {0.96, 0}, {50.5, 0}, kExactUnsharp},
        {"unsharp=7:7:-2:7:7:-2", false, false, {0.999, 0.999}, {0, 0}, kExactUnsharp},
        {"gblur=sigma=2", false, true, {0.74, 0.53}, {40, 41}},
        {"boxblur=luma_radius=2:luma_power=1", false, true, {0.99, 0.98}, {51.5, 54}, kExactBox},
        {"boxblur=2:1", false, true, {0.99, 0.98}, {51.5, 54}, kExactBox},
        {"boxblur=2:1:cr=0:ar=0", false, true, {0.99, 0.99}, {52, 54}, kExactBox},
        {"boxblur=luma_radius=min(h\\,w)/10:luma_power=1:chroma_radius=min(cw\\,ch)/10:chroma_power=1", false, true, {0.98, 0.91}, {54.5, 57.5}, kExactBox},
        {"boxblur", false, true, {0.99, 0.98}, {52.5, 56}, kExactBox},
    };
    for (const char* format : {"yuv420p", "yuv422p10le"}) {
        const std::string clip = dir + "/" + format + ".mkv";
        const CommandResult made = photograph_clip(clip, 333, 197, 4, format);
        ASSERT_EQ(made.exit_code, 0) << made.output;
        for (const Case& c : cases) {
            if (std::string(format) != "yuv420p" && !c.ten_bit_too) continue;
            const CommandResult ff =
                run_command({"ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", c.filter, "-c:v", "ffv1", dir + "/ff.mkv"});
            if (ff.exit_code != 0 && ff.output.find("No such filter") != std::string::npos) continue;
            ASSERT_EQ(ff.exit_code, 0) << ff.output;
            const CommandResult vf =
                run_vfilter({"--compat", "ffmpeg", "-y", "-i", clip, "-vf", with_options(c.filter, c.exact), "--codec", "ffv1", dir + "/vf.mkv"});
            ASSERT_EQ(vf.exit_code, 0) << vf.output;
            const auto a = read_video_frames(dir + "/ff.mkv"), b = read_video_frames(dir + "/vf.mkv");
            ASSERT_EQ(a.size(), b.size()) << c.filter;
            const Closeness r = compare(a, b, c.three_by_three);
            const int k = std::string(format) == "yuv420p" ? 0 : 1;
            std::printf("%s %s: %.2f%% within 1, %.2f%% equal, PSNR %.1f dB\n", format, c.filter, 100.0 * r.within_one / r.samples,
                        100.0 * r.equal / r.samples, r.psnr());
            EXPECT_GE(r.within_one, c.within_one[k] * r.samples) << format << " " << c.filter << ": " << r.samples - r.within_one
                                                                 << " of " << r.samples << " samples more than 1 from ffmpeg's";
            EXPECT_GE(r.psnr(), c.psnr[k]) << format << " " << c.filter;
        }
    }
}

}  // namespace
}  // namespace vf
