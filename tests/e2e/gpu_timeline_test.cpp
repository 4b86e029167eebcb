// FFmpeg's enable= in the GPU stage: each frame is filtered by exactly the filters whose
// expression holds for it (a filter left out copies its planes on the frame's stream), frames
// leave in order, and through the batch window, where frames share a launch only when the same
// filters apply to them, the result is the same.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "config/chain_spec.hpp"
#include "kernels/cuda_backend.hpp"
#include "pipeline/filter_stage.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "support/expected_output.hpp"

namespace vf {
namespace {

using namespace test;

// box on frames 1 and 3..5 (n == 1, or 0.12 <= t <= 0.2 at 25 fps), sobel on the even ones,
// gaussian on all: the chain each frame must have had.
const char* const kChain = "box=radius=1:enable='eq(n,1)+between(t,0.12,0.2)',sobel=enable='not(mod(n,2))',gaussian=sigma=1";

std::string chain_for_frame(int i) {
    std::string c = (i == 1 || (i >= 3 && i <= 5)) ? "box=radius=1," : "";
    if (i % 2 == 0) c += "sobel,";
    return c + "gaussian=sigma=1";
}

void expect_frames_follow_enable(GpuRuntime& runtime, int streams) {
    FilterStageOptions o;
    o.device = Device::Cuda;
    o.gpu = runtime.device(0);
    o.gpu_streams = streams;
    o.time_base = {1, 25};
    FilterStage stage(build_chain(kChain), o);
    FramePool pool(67, 45, AV_PIX_FMT_YUV420P);
    std::mt19937 rng(5);
    std::vector<AvFramePtr> expected, got;
    for (int i = 0; i < 12; ++i) {
        AvFramePtr in = random_frame(pool, rng, i);
        expected.push_back(reference_filter(in.get(), chain_for_frame(i)));
        stage.submit(std::move(in));
        while (AvFramePtr f = stage.take(false)) got.push_back(std::move(f));
    }
    while (AvFramePtr f = stage.take(true)) got.push_back(std::move(f));
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i]->pts, static_cast<int64_t>(i));
        std::string where;
        EXPECT_EQ(frame_differences(got[i].get(), expected[i].get(), false, &where), 0) << "frame " << i << " " << where;
    }
}

TEST(GpuTimeline, EachFrameGetsTheFiltersItsExpressionsEnable) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    GpuRuntime runtime;
    expect_frames_follow_enable(runtime, 1);
    expect_frames_follow_enable(runtime, 4);
}

TEST(GpuTimeline, TheBatchWindowLaunchesFramesOfTheSameFiltersTogether) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    GpuRuntimeOptions ro;
    ro.batch_wait_us = 500;
    GpuRuntime runtime(ro);
    expect_frames_follow_enable(runtime, 4);
}

}  // namespace
}  // namespace vf
