// RGB filtered as RGB through the command line on the GPU: --device cuda against the CPU test's
// per-plane reference (tests/e2e/rgb_formats_test.cpp), format and alpha checks, with filters
// whose GPU rows give the reference's bytes exactly (not gaussian: its FP32 sums may differ by 1,
// tests/e2e/gpu_pipeline_test.cpp). Skips without a GPU.
#include <gtest/gtest.h>

#include "kernels/cuda_backend.hpp"
#include "support/rgb_check.hpp"

namespace vf {
namespace {

using namespace test;

void check_formats(bool deep) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    for (AVPixelFormat format : rgb_formats()) {
        if ((av_pix_fmt_desc_get(format)->comp[0].depth > 10) != deep) continue;
        for (const char* filter : {"sobel", "box=radius=2", "emboss", "kirsch"})
            EXPECT_EQ(check_rgb_through_cli(format, filter, "cuda"), 3) << filter << " on " << av_get_pix_fmt_name(format);
    }
}

TEST(GpuRgbFormats, EveryFormatIsFilteredPerColourPlaneAndKeptOnTheGpu) { check_formats(false); }

// 12 and 16 bits: larger sums than the YUV formats (8 and 10 bits) ever gave the GPU rows.
TEST(GpuRgbFormats, DeepFormatsAreFilteredPerColourPlaneOnTheGpu) { check_formats(true); }

TEST(GpuRgbFormats, FfmpegsDefaultsFilterEveryColourPlaneOnTheGpu) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    for (AVPixelFormat format : {AV_PIX_FMT_RGB24, AV_PIX_FMT_BGRA, AV_PIX_FMT_GBRP10LE, AV_PIX_FMT_GBRAP16LE})
        for (const char* filter : {"sobel", "avgblur=sizeX=2", "unsharp=5:5:1.5", "boxblur=2:1"})
            EXPECT_EQ(check_rgb_through_cli(format, filter, "cuda", {"--compat", "ffmpeg"}), 3)
                << filter << " on " << av_get_pix_fmt_name(format);
}

}  // namespace
}  // namespace vf
