// `vfilter serve` measuring NVDEC's capacity while cameras decode (NVML's busy figure for the GPU
// that decodes), and saying so in GET /streams and /metrics. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "app/run/job.hpp"
#include "app/serve/stream_service.hpp"
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
