// The whole pipeline with --device cuda against --device cpu: the same clip, the same chain,
// lossless output, compared frame by frame. Gradients and exact whole-number kernels must match
// bit for bit; the rest within 1 LSB on at least 99.9% of samples identical.
#include <gtest/gtest.h>

#include "kernels/cuda_backend.hpp"
#include "app/job.hpp"
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
        o.input = clip.path;
        o.output = out;
        o.filter = c.filter;
        o.codec = "ffv1";
        o.device = device;
        o.compat = c.compat;
        o.progress = false;
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
