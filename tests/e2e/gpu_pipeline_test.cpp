// The whole pipeline with --device cuda against --device cpu: the same clip, the same chain,
// lossless output, compared frame by frame. Gradients and exact whole-number kernels must match
// bit for bit; the rest within 1 LSB on at least 99.9% of samples identical.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "kernels/cuda_backend.hpp"
#include "app/run/job.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

struct Case {
    const char* name;
    AVPixelFormat format;
    int width, height;
    const char* filter;
    bool exact;
    FilterDefaults compat = FilterDefaults::Vfilter;  // Ffmpeg: an FFmpeg filter string, unchanged
};

class GpuPipeline : public ::testing::TestWithParam<Case> {};

long count_samples(const AVFrame* f) {
    long n = 0;
    for (const PlaneView& v : channel_views(f)) n += static_cast<long>(v.width) * v.height;
    return n;
}

TEST_P(GpuPipeline, MatchesTheCpuPath) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const Case c = GetParam();
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = c.width;
    clip.height = c.height;
    clip.format = c.format;
    clip.frames = 6;
    write_clip(clip);
    auto run = [&](DeviceChoice device, const std::string& out) {
        RunOptions o;
        o.input.url = clip.path;
        o.output.path = out;
        o.filter.chain = c.filter;
        o.output.codec = "ffv1";
        o.filter.device = device;
        o.filter.compat = c.compat;
        Job job(o);
        return job.run();
    };
    const JobResult gpu = run(DeviceChoice::Cuda, dir + "/gpu.mkv");
    const JobResult cpu = run(DeviceChoice::Cpu, dir + "/cpu.mkv");
    EXPECT_EQ(gpu.stats.frames_out, 6);
    EXPECT_EQ(summarize(dir + "/gpu.mkv").audio_packets, summarize(clip.path).audio_packets);
    const auto a = read_video_frames(dir + "/gpu.mkv"), b = read_video_frames(dir + "/cpu.mkv");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        std::string where;
        const long differ = frame_differences(a[i].get(), b[i].get(), false, &where);
        if (c.exact) EXPECT_EQ(differ, 0) << c.name << " frame " << i << " " << where;
        else EXPECT_LE(differ, count_samples(a[i].get()) / 1000) << c.name << " frame " << i << " " << where;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Chains, GpuPipeline,
    ::testing::Values(Case{"sobel", AV_PIX_FMT_YUV420P, 321, 239, "sobel", true},
                      Case{"sobel_all_10bit", AV_PIX_FMT_YUV420P10LE, 320, 240, "sobel=planes=all", true},
                      Case{"gaussian", AV_PIX_FMT_YUV420P, 321, 239, "gaussian=sigma=2", false},
                      Case{"box_422", AV_PIX_FMT_YUV422P, 200, 120, "box=radius=3", true},
                      Case{"conv5x5", AV_PIX_FMT_YUV444P, 161, 97,
                           "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:bias=64",
                           true},
                      Case{"chain", AV_PIX_FMT_YUV420P, 321, 239, "box=radius=1,sharpen=planes=all,sobel=planes=all", true},
                      Case{"emboss_gray", AV_PIX_FMT_GRAY8, 99, 77, "emboss", true},
                      // FFmpeg's filter strings, unchanged, with FFmpeg's defaults.
                      Case{"ffmpeg_blur", AV_PIX_FMT_YUV420P, 321, 239,
                           "convolution=1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1/9:1/9:1/9:1/9", true,
                           FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_sobel", AV_PIX_FMT_YUV422P10LE, 321, 239, "sobel", true, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_roberts", AV_PIX_FMT_YUV420P, 321, 239, "roberts=planes=1:scale=2*0.6", true,
                           FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_avgblur", AV_PIX_FMT_YUV420P10LE, 200, 120, "avgblur=2:15:5", true, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_gblur", AV_PIX_FMT_YUV420P, 321, 239, "gblur=sigma=1.5:sigmaV=3", false, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_unsharp", AV_PIX_FMT_YUV420P, 321, 239, "unsharp=5:5:1.2:3:3:0.4", true, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_kirsch", AV_PIX_FMT_YUV422P10LE, 321, 239, "kirsch", true, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_kirsch_scaled", AV_PIX_FMT_YUV420P, 320, 240, "kirsch=7:0.4:9", true, FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_boxblur", AV_PIX_FMT_YUV420P, 321, 239,
                           "boxblur=luma_radius=min(h\\,w)/10:luma_power=1:chroma_radius=min(cw\\,ch)/10:chroma_power=1", true,
                           FilterDefaults::Ffmpeg},
                      Case{"ffmpeg_boxblur_10bit", AV_PIX_FMT_YUV422P10LE, 201, 119, "boxblur=2:3:cr=1", true, FilterDefaults::Ffmpeg}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace vf

namespace vf {
namespace {

using namespace test;

// A dense k x k convolution of whole-number taps in -max_tap..max_tap, as a filter string.
std::string dense_filter(int k, int max_tap, std::mt19937& rng) {
    std::uniform_int_distribution<int> tap(-max_tap, max_tap);
    std::string m;
    for (int i = 0; i < k * k; ++i) m += (i ? " " : "") + std::to_string(tap(rng));
    return "convolution=m=" + m + ":rdiv=1/" + std::to_string(k * k * max_tap / 2 + 1) + ":bias=128";
}

// `auto` is deterministic: for dense kernels from 7x7 to 63x63, where it times rows against each
// other once per prepared chain, the same clip and filter give the same bytes in two fresh
// processes, and the CPU path's bytes (every row auto may time is exact), for 8 and 10 bit,
// planar, interleaved and shifted layouts. Timing among rows of unequal output (the FFT, within 1
// of the exact sums) would let two runs or two GPUs differ; no row that ran may be the FFT.
TEST(GpuAuto, SameBytesInTwoFreshProcessesAndOnTheCpu) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    struct Layout {
        AVPixelFormat format;
        const char* extension;
        const char* codec;
    };
    const Layout layouts[] = {{AV_PIX_FMT_YUV420P, "mkv", "ffv1"},
                              {AV_PIX_FMT_YUV420P10LE, "mkv", "ffv1"},
                              {AV_PIX_FMT_NV12, "nut", "rawvideo"},
                              {AV_PIX_FMT_P010LE, "nut", "rawvideo"}};
    std::mt19937 rng(4096);
    const std::string dir = temp_dir();
    for (const int k : {7, 13, 27, 63}) {
        // Taps small enough at 63x63 that the 10-bit sums stay exact in FP32 (the tensor rows take them).
        const std::string filter = dense_filter(k, k == 63 ? 2 : 9, rng);
        for (const Layout& l : layouts) {
            const std::string what = std::string(av_get_pix_fmt_name(l.format)) + " " + std::to_string(k) + "x" + std::to_string(k);
            ClipSpec clip;
            clip.path = dir + "/in-" + std::to_string(k) + "-" + av_get_pix_fmt_name(l.format) + "." + l.extension;
            clip.width = 333;
            clip.height = 197;
            clip.format = l.format;
            clip.frames = 2;
            clip.video_codec = l.codec;
            clip.audio = false;
            clip.seed = static_cast<unsigned>(k);
            write_clip(clip);
            auto run = [&](const char* device, const std::string& name) {
                const std::string out = dir + "/" + name + "." + l.extension;
                const CommandResult r = run_vfilter({"-i", clip.path, "-f", filter, "--device", device, "--codec", l.codec, "-y",
                                                     "--stats-json", out + ".json", "-o", out});
                EXPECT_EQ(r.exit_code, 0) << what << ": " << r.output;
                return out;
            };
            const std::string first = run("cuda", "first"), second = run("cuda", "second"), cpu = run("cpu", "cpu");
            const auto a = read_video_frames(first), b = read_video_frames(second), c = read_video_frames(cpu);
            ASSERT_EQ(a.size(), 2u) << what;
            ASSERT_EQ(b.size(), 2u) << what;
            ASSERT_EQ(c.size(), 2u) << what;
            for (size_t i = 0; i < a.size(); ++i) {
                std::string where;
                EXPECT_EQ(frame_differences(a[i].get(), b[i].get(), false, &where), 0) << what << " frame " << i << ": two runs differ " << where;
                EXPECT_EQ(frame_differences(a[i].get(), c[i].get(), false, &where), 0) << what << " frame " << i << ": GPU and CPU differ " << where;
            }
            std::ifstream stats(first + ".json");
            const std::string text((std::istreambuf_iterator<char>(stats)), std::istreambuf_iterator<char>());
            EXPECT_NE(text.find("gpu_kernels"), std::string::npos) << what << ": " << text;
            EXPECT_EQ(text.find(": fft"), std::string::npos) << what << ": auto ran the FFT: " << text;
        }
    }
}

}  // namespace
}  // namespace vf
