// `vfilter serve` on the GPU: several streams in one process (one CUDA context), mixed frame
// sizes, depths and filters at once, through the shared batch window (streams with the same
// filters and size share launches); every stream's output equals the single-stream command's
// output for the same input (which launches each frame alone), frame for frame and bit for bit.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <thread>

#include "app/run/job.hpp"
#include "app/serve/stream_service.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "decode/nvdec_busy_meter.hpp"
#include "decode/nvdec_decoder_pool.hpp"
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_frame_filter.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

struct ServedCase {
    std::string name, filter;
    AVPixelFormat format;
    int width, height;
    std::string codec = "ffv1";  // libx264: NVDEC decodes it
};

// The case's clip of `frames` frames in dir, named after it (a key frame every `gop` frames; 0: the encoder's choice).
ClipSpec write_case_clip(const std::string& dir, const ServedCase& c, unsigned seed, int gop = 0, int frames = 24) {
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
void expect_served_equal_single(const std::string& dir, const std::vector<ServedCase>& cases, size_t frames = 24) {
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
        single.progress = false;
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
        single.progress = false;
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

namespace vf {
namespace {

using namespace test;

// Placement by load with capacities of 4 camera streams on NVDEC and 4 on the CPU: a few small
// streams fill NVDEC past half.
DecoderCapacity four_and_four_by_load() {
    DecoderCapacity capacity;
    capacity.by_load = true;
    capacity.nvdec_streams = 4;
    capacity.cpu_streams = 4;
    return capacity;
}

// Decoders placed by load (app/serve/decoder_balance.hpp), with capacities small enough that eight
// H.264 streams fill NVDEC past half: some decode on NVDEC and some on the CPU, each where its
// placement says, and every one writes the frames the single-stream command writes with NVDEC.
TEST(GpuServe, StreamsDecodedOnNvdecAndTheCpuGiveTheSameFrames) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const ServedCase c{"cam", "gaussian=sigma=3.2", AV_PIX_FMT_YUV420P, 640, 352, "libx264"};
    const ClipSpec clip = write_case_clip(dir, c, 500);
    RunOptions single = make_stream_config("single", {{"input", clip.path}, {"output", dir + "/single.mkv"}, {"filter", c.filter},
                                                      {"codec", "ffv1"}, {"device", "cuda"}},
                                           {})
                            .options;
    single.progress = false;
    Job job(single);
    const JobResult one = job.run();
    ASSERT_EQ(one.stats.frames_out, 24);
    ASSERT_EQ(one.stats.hw_decode, "cuda");
    ServeConfig config;
    for (int k = 0; k < 8; ++k)
        config.streams.push_back(make_stream_config("cam" + std::to_string(k), {{"input", clip.path},
                                                                                 {"output", dir + "/cam" + std::to_string(k) + ".mkv"},
                                                                                 {"filter", c.filter}, {"codec", "ffv1"}, {"device", "cuda"}},
                                                    {}));
    std::map<std::string, std::string> decoder;
    {
        StreamService service;
        service.set_gpus({0}, four_and_four_by_load());
        service.apply(config);
        service.wait_all();
        const nlohmann::json stats = service.final_stats();
        for (const nlohmann::json& s : service.list()) {
            const std::string name = s["name"];
            ASSERT_TRUE(s.contains("decoding")) << s.dump();
            decoder[name] = s["decoding"]["decoder"];
            EXPECT_EQ(stats[name]["stats"]["hw_decode"], decoder[name] == "nvdec" ? "cuda" : "none") << s.dump();
        }
    }
    const auto on = [&](const std::string& d) { return std::count_if(decoder.begin(), decoder.end(), [&](const auto& e) { return e.second == d; }); };
    EXPECT_EQ(on("nvdec"), 4);
    EXPECT_EQ(on("cpu"), 4);
    const auto expected = read_video_frames(dir + "/single.mkv");
    for (const auto& [name, d] : decoder) {
        const auto served = read_video_frames(dir + "/" + name + ".mkv");
        ASSERT_EQ(served.size(), expected.size()) << name;
        for (size_t i = 0; i < served.size(); ++i) {
            std::string where;
            EXPECT_EQ(frame_differences(served[i].get(), expected[i].get(), false, &where), 0)
                << name << " (" << d << ") frame " << i << " " << where;
        }
    }
}

// Streams placed by load move between decoders when others leave (app/serve/decoder_balance.hpp): two
// of four cameras (paced as live) decode on the CPU until the two on NVDEC are removed; then
// both move to NVDEC at a key frame, GET /streams says so, and each still writes every frame of
// its input once, equal to the single-stream command's output.
TEST(GpuServe, StreamsMovedToNvdecWhenOthersLeaveWriteEveryFrameOnce) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string clip = write_h264_clip(dir + "/cam.mp4", 640, 352, 100, 10);
    const std::string filter = "gaussian=sigma=3.2";
    RunOptions single = make_stream_config("single", {{"input", clip}, {"output", dir + "/single.mkv"}, {"filter", filter},
                                                      {"codec", "ffv1"}, {"device", "cuda"}},
                                           {})
                            .options;
    single.progress = false;
    Job job(single);
    const JobResult one = job.run();
    ASSERT_EQ(one.stats.hw_decode, "cuda");
    ServeConfig config;
    for (int k = 0; k < 4; ++k)
        config.streams.push_back(make_stream_config("cam" + std::to_string(k), {{"input", clip},
                                                                                 {"output", dir + "/cam" + std::to_string(k) + ".mkv"},
                                                                                 {"filter", filter}, {"codec", "ffv1"},
                                                                                 {"device", "cuda"}, {"realtime", "true"}},
                                                    {}));
    std::map<std::string, nlohmann::json> decoding;
    nlohmann::json stats;
    std::vector<std::string> moved;
    {
        StreamService service;
        service.set_gpus({0}, four_and_four_by_load());
        service.apply(config);
        std::vector<std::string> on_nvdec;
        // Every input open (counted where it decodes) before the others leave.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (bool opened = false; !opened && std::chrono::steady_clock::now() < deadline;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            opened = true;
            for (const nlohmann::json& s : service.list()) opened = opened && s["frames_out"].get<int64_t>() > 0;
        }
        for (const nlohmann::json& s : service.list()) {
            if (s["decoding"]["decoder"] == "nvdec") on_nvdec.push_back(s["name"]);
            else moved.push_back(s["name"]);
        }
        ASSERT_EQ(on_nvdec.size(), 2u) << service.list().dump();
        for (const std::string& name : on_nvdec) service.remove(name);
        for (const nlohmann::json& s : service.list()) EXPECT_EQ(s["decoding"]["decoder"], "nvdec") << s.dump();
        service.wait_all();
        stats = service.final_stats();
        for (const nlohmann::json& s : service.list()) decoding[s["name"]] = s["decoding"];
        const std::string metrics = service.metrics();
        for (const std::string& name : moved) {
            const std::string line = "vfilter_stream_decoder_moves_total{stream=\"" + name + "\"} 1";
            EXPECT_NE(metrics.find(line), std::string::npos) << line;
        }
    }
    ASSERT_EQ(moved.size(), 2u);
    const auto expected = read_video_frames(dir + "/single.mkv");
    for (const std::string& name : moved) {
        EXPECT_EQ(decoding[name]["moves"], 1) << decoding[name].dump();
        EXPECT_NE(decoding[name]["why"].get<std::string>().find("moved to NVDEC"), std::string::npos) << decoding[name].dump();
        EXPECT_EQ(stats[name]["stats"]["hw_decode"], "cuda") << "it ended on NVDEC";
        const auto served = read_video_frames(dir + "/" + name + ".mkv");
        ASSERT_EQ(served.size(), expected.size()) << name << ": a frame lost or repeated at the move";
        for (size_t i = 0; i < served.size(); ++i) {
            std::string where;
            EXPECT_EQ(frame_differences(served[i].get(), expected[i].get(), false, &where), 0) << name << " frame " << i << " " << where;
        }
    }
}


// serve --nvdec-share: H.264 streams of one size decode into slices of shared NVDEC decoders
// (decode/nvdec_decoder_pool.hpp), each stream's parser numbering its own surfaces. Six cameras of
// one size with different pictures (B-frames: references renumbered too) and two of another,
// paced as live so that they decode at once: fewer decoders than streams while they run, every
// stream's frames equal to its single run (a picture decoded into another stream's surface, or
// a reference read from one, would show), and no decoder left once they are gone.
TEST(GpuServe, StreamsSharingNvdecDecodersEqualTheirSingleRuns) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    std::vector<ServedCase> cases;
    for (int k = 0; k < 6; ++k) cases.push_back({"big" + std::to_string(k), "sobel", AV_PIX_FMT_YUV420P, 640, 352, "libx264"});
    for (int k = 0; k < 2; ++k) cases.push_back({"small" + std::to_string(k), "sobel", AV_PIX_FMT_YUV420P, 320, 176, "libx264"});
    ServeConfig config;
    for (size_t i = 0; i < cases.size(); ++i) {
        const ServedCase& c = cases[i];
        const ClipSpec clip = write_case_clip(dir, c, 700 + static_cast<unsigned>(i));
        config.streams.push_back(make_stream_config(c.name, {{"input", clip.path}, {"output", dir + "/" + c.name + "-served.mkv"},
                                                             {"filter", c.filter}, {"codec", "ffv1"}, {"device", "cuda"},
                                                             {"hwdec", "cuda"}, {"realtime", "true"}, {"on-overload", "block"}},
                                                    {}));
        RunOptions single = config.streams.back().options;
        single.output.path = dir + "/" + c.name + "-single.mkv";
        single.input.realtime = false;
        single.progress = false;
        Job job(single);
        ASSERT_EQ(job.run().stats.frames_out, 24);
    }
    int most_streams = 0, decoders_then = 0;
    const auto runtime = std::make_shared<GpuRuntime>();
    {
        StreamService service(0, 24, {}, runtime);
        DecoderCapacity capacity;
        capacity.nvdec_share = true;
        service.set_gpus({0}, capacity);
        service.apply(config);
        // Sampled while the streams run: the most streams on shared decoders at once, and how
        // many decoders they had then.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        bool running = true;
        while (running && std::chrono::steady_clock::now() < until) {
            if (const auto pool = runtime->device(0)->nvdec()->live_pool()) {
                const NvdecDecoderPool::Counts n = pool->counts();
                if (n.streams > most_streams) most_streams = n.streams, decoders_then = n.decoders;
            }
            running = false;
            for (const auto& s : service.list()) running = running || s["state"] != "stopped";
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        service.wait_all();
        const nlohmann::json stats = service.final_stats();
        for (const ServedCase& c : cases) {
            EXPECT_EQ(stats[c.name]["stats"]["hw_decode"], "cuda") << stats[c.name].dump();
            EXPECT_EQ(stats[c.name]["stats"]["nvdec_decoder"], "vfilter") << stats[c.name].dump();
        }
    }
    EXPECT_GE(most_streams, 4) << "the streams did not decode at once: nothing was shared";
    EXPECT_LT(decoders_then, most_streams) << "every stream had a decoder of its own";
    EXPECT_EQ(runtime->device(0)->nvdec()->live_pool(), nullptr) << "a decoder outlived its streams";
    expect_served_equal_single(dir, cases);
}

// serve --nvdec-share with hwdec auto: a file whose shared decoder is still to be made decodes on
// the CPU meanwhile and moves to NVDEC at a key frame once the pool's maker has made one
// (decode/nvdec_decoder_pool.hpp, turns). Eight 720p files of one size started at once, a key
// frame every 6 frames, and a camera (paced) beside them: the first file makes a decoder while
// others start on the CPU and move (seen in GET /streams); the camera waits for NVDEC instead (a
// live input's policy would drop frames at the move); every frame of every stream equals its
// single run (none lost or repeated at the move, none decoded into another stream's surfaces),
// the streams end on NVDEC, and no decoder is left once they are gone.
TEST(GpuServe, FilesWaitingForASharedDecoderStartOnTheCpuAndEqualTheirSingleRuns) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    constexpr int kFrames = 72;
    std::vector<ServedCase> cases;
    for (int k = 0; k < 8; ++k) cases.push_back({"file" + std::to_string(k), "sobel", AV_PIX_FMT_YUV420P, 1280, 720, "libx264"});
    cases.push_back({"camera", "sobel", AV_PIX_FMT_YUV420P, 1280, 720, "libx264"});
    ServeConfig config;
    for (size_t i = 0; i < cases.size(); ++i) {
        const ServedCase& c = cases[i];
        const ClipSpec clip = write_case_clip(dir, c, 800 + static_cast<unsigned>(i), 6, kFrames);
        const bool camera = c.name == "camera";
        config.streams.push_back(make_stream_config(c.name, {{"input", clip.path}, {"output", dir + "/" + c.name + "-served.mkv"},
                                                             {"filter", c.filter}, {"codec", "ffv1"}, {"device", "cuda"},
                                                             {"hwdec", "auto"}, {"realtime", camera ? "true" : "false"},
                                                             {"on-overload", "block"}},
                                                    {}));
        RunOptions single = config.streams.back().options;
        single.output.path = dir + "/" + c.name + "-single.mkv";
        single.input.realtime = false;
        single.progress = false;
        Job job(single);
        ASSERT_EQ(job.run().stats.frames_out, kFrames);
    }
    std::map<std::string, bool> waited, moved;
    const auto runtime = std::make_shared<GpuRuntime>();
    {
        StreamService service(0, 24, {}, runtime);
        DecoderCapacity capacity;
        capacity.nvdec_share = true;
        service.set_gpus({0}, capacity);
        service.apply(config);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        bool running = true;
        while (running && std::chrono::steady_clock::now() < until) {
            running = false;
            for (const auto& s : service.list()) {
                running = running || s["state"] != "stopped";
                if (!s.contains("decoding")) continue;
                const std::string name = s["name"], reason = s["decoding"]["why"];
                waited[name] = waited[name] || reason.find("until a shared NVDEC decoder has room") != std::string::npos;
                moved[name] = moved[name] || reason.find("once a shared decoder had room") != std::string::npos;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        service.wait_all();
        const nlohmann::json stats = service.final_stats();
        for (const ServedCase& c : cases) EXPECT_EQ(stats[c.name]["stats"]["hw_decode"], "cuda") << stats[c.name].dump();
    }
    int waited_n = 0, moved_n = 0;
    for (const ServedCase& c : cases) waited_n += waited[c.name], moved_n += moved[c.name];
    EXPECT_GE(waited_n, 1) << "no file started on the CPU: the turns were not tested";
    EXPECT_EQ(moved_n, waited_n) << "a file that waited never moved to NVDEC";
    EXPECT_FALSE(waited["camera"]) << "a live input started on the CPU";
    EXPECT_EQ(runtime->device(0)->nvdec()->live_pool(), nullptr) << "a decoder outlived its streams";
    expect_served_equal_single(dir, cases, kFrames);
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

using namespace test;

// NVDEC's capacity measured, not assumed (app/serve/decoder_balance.hpp, nvdec_sampled): 32 camera-like
// streams (1080p30 H.264 at 4 Mb/s, paced as live) decode on NVDEC under serve's defaults; NVML
// answers for the GPU, and within the run serve has measured the GPU's capacity from how busy
// the streams keep NVDEC: at least the 32 that are decoding in real time, and said so in
// GET /streams' capacity and /metrics. Every stream still writes every frame.
// A camera-like clip (1080p30 H.264 main profile at 4 Mb/s, no B-frames, testsrc2 with moving
// noise so the bits carry picture) of `frames` frames, made by the ffmpeg command.
std::string write_camera_clip(const std::string& path, int frames) {
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-vf",
                                            "noise=alls=10:allf=t", "-frames:v", std::to_string(frames), "-pix_fmt", "yuv420p",
                                            "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-bf", "0", "-g", "60",
                                            "-b:v", "4M", "-maxrate", "4M", "-bufsize", "4M", path});
    if (made.exit_code != 0) throw std::runtime_error("ffmpeg could not make " + path + ": " + made.output);
    return path;
}

// `n` cameras (paced as live, every frame kept) of `clip` decoded on NVDEC and filtered, to null.
ServeConfig cameras_on_nvdec(const std::string& clip, int n) {
    ServeConfig config;
    for (int k = 0; k < n; ++k)
        config.streams.push_back(make_stream_config("cam" + std::to_string(k), {{"input", clip}, {"output", "null"},
                                                                                 {"filter", "gaussian=sigma=3.2"}, {"device", "cuda"},
                                                                                 {"hwdec", "cuda"}, {"realtime", "true"},
                                                                                 {"on-overload", "block"}},
                                                    {}));
    return config;
}

TEST(GpuServe, NvdecCapacityIsMeasuredWhileCamerasDecode) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    {
        const NvdecBusyMeter meter({{0, gpu_pci_bus_id(0)}});
        if (!meter.available()) GTEST_SKIP() << "no NVML here: " << meter.unavailable();
        const std::optional<double> busy = meter.busy(0);
        ASSERT_TRUE(busy);
        EXPECT_GE(*busy, 0);
        EXPECT_LE(*busy, 1);
    }
    constexpr int kFrames = 240, kCameras = 32;
    const std::string clip = write_camera_clip(temp_dir() + "/camera.mp4", kFrames);
    const ServeConfig config = cameras_on_nvdec(clip, kCameras);
    nlohmann::json measured;
    std::string metrics;
    {
        StreamService service;
        service.set_gpus({0});
        service.apply(config);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < until && !service.all_ended()) {
            const nlohmann::json capacity = service.capacity_left()["nvdec_capacity"]["0"];
            if (capacity["from"] == "measured") {
                measured = capacity;
                metrics = service.metrics();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
        service.wait_all();
        const nlohmann::json stats = service.final_stats();
        for (int k = 0; k < kCameras; ++k) {
            const nlohmann::json& s = stats["cam" + std::to_string(k)]["stats"];
            EXPECT_EQ(s["frames_out"], kFrames) << s.dump();
            EXPECT_EQ(s["hw_decode"], "cuda") << s.dump();
        }
    }
    ASSERT_FALSE(measured.is_null()) << "no capacity measured while " << kCameras << " cameras decoded";
    std::cout << "NVDEC capacity measured: " << measured.dump() << "\n";
    EXPECT_GE(measured["streams"].get<double>(), kCameras) << "it decoded " << kCameras << " in real time: " << measured.dump();
    EXPECT_NE(metrics.find("vfilter_decoder_capacity_measured{decoder=\"nvdec\",gpu=\"0\"} 1"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("vfilter_nvdec_busy_ratio{gpu=\"0\"}"), std::string::npos) << metrics;
}

// NVML numbers GPUs its own way (and CUDA_VISIBLE_DEVICES renumbers CUDA's): the meter names them
// by PCI bus id. 24 cameras decode on GPU 1's NVDEC alone: NVML says GPU 1 is busy and GPU 0 is
// not, and serve measures GPU 1's capacity. Needs two GPUs.
TEST(GpuServe, NvdecBusyIsReadForTheGpuThatDecodes) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    if (gpu_count() < 2) GTEST_SKIP() << "needs two GPUs; " << gpu_count() << " here";
    const NvdecBusyMeter meter({{0, gpu_pci_bus_id(0)}, {1, gpu_pci_bus_id(1)}});
    if (!meter.available()) GTEST_SKIP() << "no NVML here: " << meter.unavailable();
    constexpr int kFrames = 240, kCameras = 24;
    const std::string clip = write_camera_clip(temp_dir() + "/camera.mp4", kFrames);
    double busy0 = 0, busy1 = 0;
    nlohmann::json capacity;
    {
        StreamService service;
        service.set_gpus({1});
        service.apply(cameras_on_nvdec(clip, kCameras));
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < until && !service.all_ended()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            busy0 = std::max(busy0, meter.busy(0).value_or(0));
            busy1 = std::max(busy1, meter.busy(1).value_or(0));
            const nlohmann::json now = service.capacity_left()["nvdec_capacity"]["1"];
            if (now["from"] == "measured") capacity = now;
        }
        service.wait_all();
        const nlohmann::json stats = service.final_stats();
        ASSERT_EQ(stats.size(), static_cast<size_t>(kCameras));
        for (const auto& [name, entry] : stats.items()) EXPECT_EQ(entry["stats"]["frames_out"], kFrames) << name;
    }
    std::cout << "GPU 0 busy at most " << busy0 << ", GPU 1 " << busy1 << "; GPU 1's capacity: " << capacity.dump() << "\n";
    EXPECT_GE(busy1, 0.08) << "GPU 1 decoded " << kCameras << " cameras";
    EXPECT_LE(busy0, 0.02) << "nothing decoded on GPU 0";
    EXPECT_EQ(capacity["from"], "measured") << capacity.dump();
}

}  // namespace
}  // namespace vf
