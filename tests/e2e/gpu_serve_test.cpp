// `vfilter serve` on the GPU: several streams in one process (one CUDA context), mixed frame
// sizes, depths and filters at once, through the shared batch window (streams with the same
// filters and size share launches); every stream's output equals the single-stream command's
// output for the same input (which launches each frame alone), frame for frame and bit for bit.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "app/run/job.hpp"
#include "app/serve/stream_service.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "decode/nvdec_busy_meter.hpp"
#include "decode/nvdec_decoder_pool.hpp"
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_frame_filter.hpp"
#include "e2e/gpu_serve_cases.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

TEST(GpuServe, EveryStreamEqualsItsSingleRun) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::vector<ServedCase> cases = {
        {"sobel_a", "sobel", AV_PIX_FMT_YUV420P, 321, 239},
        {"sobel_b", "sobel", AV_PIX_FMT_YUV420P, 321, 239},  // same plan and geometry as sobel_a
        {"sobel_c", "sobel", AV_PIX_FMT_YUV420P, 321, 239},
        {"sobel_d", "sobel", AV_PIX_FMT_YUV420P, 320, 239},  // one column fewer: its own group (its own frames only)
        {"gauss", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 360},
        {"gauss_b", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 360},
        {"gauss_c", "gaussian=sigma=3.3", AV_PIX_FMT_YUV420P, 640, 360},  // another plan: its own group
        {"box10", "box=radius=2,sharpen", AV_PIX_FMT_YUV420P10LE, 200, 120},
        {"kirsch", "kirsch", AV_PIX_FMT_YUV422P, 161, 97},
        {"conv", "convolution=m=1 2 1 2 4 2 1 2 1:rdiv=1/16", AV_PIX_FMT_YUV444P, 96, 64},
        {"nvdec_a", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 352, "libx264"},
        {"nvdec_b", "sobel", AV_PIX_FMT_YUV420P, 640, 352, "libx264"},
        {"nvdec_c", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 352, "libx264"},  // NVDEC frames with nvdec_a
    };
    ServeConfig config;
    for (size_t i = 0; i < cases.size(); ++i) {
        const ServedCase& c = cases[i];
        const ClipSpec clip = write_case_clip(dir, c, 100 + static_cast<unsigned>(i));
        config.streams.push_back(make_stream_config(
            c.name, {{"input", clip.path}, {"output", dir + "/" + c.name + "-served.mkv"}, {"filter", c.filter}, {"codec", "ffv1"},
                     {"device", "cuda"}}, {}));
        RunOptions single = config.streams.back().options;
        single.output.path = dir + "/" + c.name + "-single.mkv";
        Job job(single);
        ASSERT_EQ(job.run().stats.frames_out, 24);
    }
    {
        GpuRuntimeOptions batching;
        batching.batch_wait_us = 20000;  // long, so that launches are shared however the streams run
        StreamService service(0, 24, {}, std::make_shared<GpuRuntime>(batching));
        service.apply(config);
        service.wait_all();
        for (const auto& s : service.list()) EXPECT_EQ(s["state"], "stopped") << s.dump();
        // H.264 streams decode on NVDEC in one process too (its context shared with the filters').
        const nlohmann::json stats = service.final_stats();
        for (const char* name : {"nvdec_a", "nvdec_b", "nvdec_c"})
            EXPECT_EQ(stats[name]["stats"]["hw_decode"], "cuda") << stats[name].dump();
        // Streams of one group did share launches (else this test would not test batching).
        for (const char* name : {"sobel_a", "sobel_b", "sobel_c", "gauss", "gauss_b"})
            EXPECT_GT(stats[name]["stats"]["gpu_frames_per_launch"].get<double>(), 1.2) << stats[name].dump();
        const GpuBatchTotals batched = service.runtime()->device(0)->batch_totals();
        EXPECT_GT(batched.frames, batched.launches);
    }
    expect_served_equal_single(dir, cases);
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

using namespace test;

// Streams placed on every GPU this machine has (serve's --gpus all), several of each filter on
// each GPU: every stream writes all its frames, each equal to the single-stream command's output
// on GPU 0, and the streams on each GPU share launches. On one GPU this is the test above with
// more streams; on two it fails where GPU state belongs to the first GPU a kernel ran on (a
// shared-memory limit raised on one device only, constant memory or tables uploaded to another).
TEST(GpuServe, StreamsOnEveryGpuEqualTheirSingleRuns) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const int gpus = gpu_count();
    const std::string dir = temp_dir();
    // One of each kind of row that needs something made on its device: a raised shared-memory
    // limit (separable-imma, imma, box-staged, tensor-half, tile), constant memory (tile,
    // separable-f32), tables in global memory (imma, tensor-half, tile-f64), an integer finish
    // (strip16-dp4a), and NVDEC frames decoded on the stream's GPU.
    std::string dense13 = "convolution=m=";
    for (int i = 0; i < 169; ++i) dense13 += std::to_string(i % 7 - 3) + (i < 168 ? " " : "");
    dense13 += ":rdiv=1/40:bias=128";
    std::string dense9f = "convolution=m=";
    for (int i = 0; i < 81; ++i) dense9f += (i % 2 ? "0.5" : "-0.25") + std::string(i < 80 ? " " : "");
    dense9f += ":bias=64";
    const std::vector<ServedCase> cases = {
        {"gauss", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 360},
        {"dense13", dense13, AV_PIX_FMT_YUV420P, 320, 240},
        {"dense13_10", dense13, AV_PIX_FMT_YUV420P10LE, 200, 120},
        {"box", "box=radius=31,sobel", AV_PIX_FMT_YUV420P, 321, 239},
        {"gauss10", "gaussian=sigma=2", AV_PIX_FMT_YUV422P10LE, 161, 97},
        {"frac9", dense9f, AV_PIX_FMT_YUV444P, 96, 64},
        {"conv5", "convolution=m=1 2 3 2 1 2 4 6 4 2 3 6 9 6 3 2 4 6 4 2 1 2 3 2 1:rdiv=1/81", AV_PIX_FMT_YUV420P, 320, 240},
        {"nvdec", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 352, "libx264"},
    };
    const int copies = 2 * gpus;  // placed in turn: each GPU gets two of every case
    ServeConfig config;
    for (size_t i = 0; i < cases.size(); ++i) {
        const ServedCase& c = cases[i];
        const ClipSpec clip = write_case_clip(dir, c, 300 + static_cast<unsigned>(i));
        RunOptions single = make_stream_config(c.name, {{"input", clip.path}, {"output", dir + "/" + c.name + "-single.mkv"},
                                                        {"filter", c.filter}, {"codec", "ffv1"}, {"device", "cuda"}},
                                               {})
                                .options;
        Job job(single);
        ASSERT_EQ(job.run().stats.frames_out, 24) << c.name;
        for (int k = 0; k < copies; ++k) {
            const std::string name = c.name + "_" + std::to_string(k);
            config.streams.push_back(make_stream_config(name, {{"input", clip.path}, {"output", dir + "/" + name + "-served.mkv"},
                                                               {"filter", c.filter}, {"codec", "ffv1"}, {"device", "cuda"}},
                                                        {}));
        }
    }
    std::map<std::string, int> gpu_of;
    std::map<int, double> best_batch;  // per GPU, the largest mean batch of its streams
    {
        GpuRuntimeOptions batching;
        batching.batch_wait_us = 20000;
        StreamService service(0, 24, {}, std::make_shared<GpuRuntime>(batching));
        std::vector<int> all;
        for (int g = 0; g < gpus; ++g) all.push_back(g);
        service.set_gpus(all);
        service.apply(config);
        service.wait_all();
        const nlohmann::json list = service.list(), stats = service.final_stats();
        for (const nlohmann::json& s : list) {
            const std::string name = s["name"];
            EXPECT_EQ(s["state"], "stopped") << s.dump();
            gpu_of[name] = s["gpu"].get<int>();
            if (s["state"] != "stopped") continue;
            const double per_launch = stats[name]["stats"]["gpu_frames_per_launch"].get<double>();
            best_batch[gpu_of[name]] = std::max(best_batch[gpu_of[name]], per_launch);
            if (name.rfind("nvdec", 0) == 0) {
                EXPECT_EQ(stats[name]["stats"]["hw_decode"], "cuda") << stats[name].dump();
            }
        }
    }
    for (int g = 0; g < gpus; ++g) {
        EXPECT_EQ(std::count_if(gpu_of.begin(), gpu_of.end(), [g](const auto& e) { return e.second == g; }),
                  static_cast<long>(cases.size()) * 2)
            << "GPU " << g << " did not get two streams of every case";
        EXPECT_GT(best_batch[g], 1.2) << "the streams on GPU " << g << " never shared a launch";
    }
    for (const ServedCase& c : cases) {
        const auto single = read_video_frames(dir + "/" + c.name + "-single.mkv");
        ASSERT_EQ(single.size(), 24u) << c.name;
        for (int k = 0; k < copies; ++k) {
            const std::string name = c.name + "_" + std::to_string(k);
            const auto served = read_video_frames(dir + "/" + name + "-served.mkv");
            ASSERT_EQ(served.size(), 24u) << name << " on GPU " << gpu_of[name];
            for (size_t i = 0; i < served.size(); ++i) {
                std::string where;
                EXPECT_EQ(frame_differences(served[i].get(), single[i].get(), false, &where), 0)
                    << name << " on GPU " << gpu_of[name] << " frame " << i << " " << where;
            }
        }
    }
}

}  // namespace
}  // namespace vf
