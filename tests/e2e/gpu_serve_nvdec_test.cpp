// `vfilter serve` on the GPU with its decoders placed by load: streams decoded on NVDEC and on the
// CPU, moved to NVDEC when others leave, sharing NVDEC decoders, or waiting for a shared decoder
// on the CPU; every stream writes every frame, equal to the single-stream command's. Skips without
// a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

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
