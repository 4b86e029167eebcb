// FFmpeg's timeline editing (enable=) in the filter stage: each frame is filtered by exactly the
// filters whose expression of t, n, pos, w, h holds for it, and passes the others unchanged; the
// same on the synchronous CPU path and through the engine that keeps frames in flight (the CPU
// stand-in of the GPU stage, which makes the same per-frame decision on the host).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "config/chain_spec.hpp"
#include "pipeline/cpu_frame_engine.hpp"
#include "pipeline/filter_stage.hpp"
#include "support/expected_output.hpp"

namespace vf {
namespace {

using namespace test;

// Frames 0..7 at 25 fps (t = n / 25) through `chain`, on the CPU path or the engine path.
std::vector<AvFramePtr> run_stage(const std::string& chain, bool engine, std::vector<AvFramePtr>* inputs) {
    FilterStageOptions o;
    o.time_base = {1, 25};
    o.time_origin_s = 4;
    if (engine) o.engine_factory = [](const std::vector<FilterPlan>& c) { return std::make_unique<CpuFrameEngine>(c, 3); };
    FilterStage stage(build_chain(chain), o);
    FramePool pool(53, 37, AV_PIX_FMT_YUV420P);
    std::mt19937 rng(11);
    std::vector<AvFramePtr> out;
    for (int i = 0; i < 8; ++i) {
        AvFramePtr in = random_frame(pool, rng, 100 + i);  // t counts from 4 s, the input's start
        inputs->push_back(reference_filter(in.get(), "identity"));
        stage.submit(std::move(in));
        while (AvFramePtr f = stage.take(false)) out.push_back(std::move(f));
    }
    while (AvFramePtr f = stage.take(true)) out.push_back(std::move(f));
    return out;
}

TEST(Timeline, EachFrameGetsTheFiltersItsExpressionsEnable) {
    // box on frames 1, 3..5 (n == 1, or 0.11 <= t <= 0.21); sobel on the even ones; gaussian always.
    const std::string chain =
        "box=radius=1:enable='eq(n,1)+between(t,0.11,0.21)',sobel=enable='not(mod(n,2))',gaussian=sigma=1";
    for (const bool engine : {false, true}) {
        std::vector<AvFramePtr> inputs;
        const std::vector<AvFramePtr> got = run_stage(chain, engine, &inputs);
        ASSERT_EQ(got.size(), 8u);
        for (int i = 0; i < 8; ++i) {
            std::string expected_chain = (i == 1 || (i >= 3 && i <= 5)) ? "box=radius=1," : "";
            if (i % 2 == 0) expected_chain += "sobel,";
            expected_chain += "gaussian=sigma=1";
            const AvFramePtr expected = reference_filter(inputs[i].get(), expected_chain);
            EXPECT_EQ(frame_differences(got[i].get(), expected.get()), 0) << (engine ? "engine" : "cpu") << ", frame " << i;
        }
    }
}

TEST(Timeline, AFilterDisabledEverywhereLeavesFramesAsTheyCame) {
    for (const bool engine : {false, true}) {
        std::vector<AvFramePtr> inputs;
        const std::vector<AvFramePtr> got = run_stage("sobel=enable='gte(w,1000)'", engine, &inputs);
        ASSERT_EQ(got.size(), 8u);
        for (int i = 0; i < 8; ++i) EXPECT_EQ(frame_differences(got[i].get(), inputs[i].get()), 0) << "frame " << i;
    }
}

}  // namespace
}  // namespace vf
