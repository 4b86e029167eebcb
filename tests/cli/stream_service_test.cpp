// StreamService's own bookkeeping over a long life: what it keeps of the streams that come and go.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include <chrono>
#include <filesystem>
#include <thread>

#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "support/clip_writer.hpp"

using namespace vf;

namespace {

// A stream told apart by its pattern's seed, which its summary's input shows.
StreamConfig short_stream(const std::string& name, int seed) {
    return make_stream_config(name,
                              {{"input", "pattern://?size=32x24&rate=240&seed=" + std::to_string(seed)},
                               {"output", "null"},
                               {"frames", "2"},
                               {"device", "cpu"}},
                              {});
}

DecoderCapacity by_load(double nvdec_streams, double cpu_streams) {
    DecoderCapacity capacity;
    capacity.by_load = true;
    capacity.nvdec_streams = nvdec_streams;
    capacity.cpu_streams = cpu_streams;
    return capacity;
}

int seed_of(const nlohmann::json& summary) {
    const std::string input = summary["input"];
    return std::stoi(input.substr(input.rfind("seed=") + 5));
}

}  // namespace

// A service that runs for months sees streams removed and added without end: --stats-json lists
// the last 256 removed, not every one since the start, and the streams still served.
TEST(StreamService, KeepsTheSummariesOfTheLast256RemovedStreamsOnly) {
    StreamService service(2);
    service.add(short_stream("stays", 0));
    constexpr int kRemoved = 300;
    for (int i = 0; i < kRemoved; ++i) {
        service.add(short_stream("cam", i + 1));
        const nlohmann::json last = service.remove("cam");
        ASSERT_EQ(last["name"], "cam");
    }
    const nlohmann::json stats = service.final_stats();
    ASSERT_EQ(stats.size(), 1u + 256u) << stats.dump().substr(0, 400);
    ASSERT_TRUE(stats.contains("stays"));
    // The oldest went first: the 256 kept are the last ones removed.
    int lowest = kRemoved + 1;
    for (const auto& [name, entry] : stats.items()) {
        if (name == "stays") continue;
        ASSERT_TRUE(name == "cam" || name.rfind("cam@removed-", 0) == 0) << name;
        lowest = std::min(lowest, seed_of(entry));
    }
    EXPECT_GT(lowest, kRemoved - 256) << "an older summary was kept instead of a newer one";
}

// Streams that may decode on NVDEC are placed by load when they start, and give their place back
// when removed (GET /streams says where each decodes). Nominal where no GPU answers: the streams
// then run on the CPU; tests/e2e/gpu_serve_test.cpp checks the frames on a GPU.
TEST(StreamService, StreamsThatMayDecodeOnNvdecArePlacedByLoad) {
    StreamService service(2);
    service.set_gpus({0}, by_load(4, 4));
    const auto stream = [](const std::string& name) {
        return make_stream_config(name, {{"input", "/nonexistent/" + name + ".mp4"}, {"output", "null"}, {"wait-for-input", "false"}}, {});
    };
    for (int i = 0; i < 8; ++i) service.add(stream("cam" + std::to_string(i)));
    std::map<std::string, int> on;
    for (const nlohmann::json& s : service.list()) ++on[s["decoding"]["decoder"].get<std::string>()];
    EXPECT_EQ(on["nvdec"], 4);
    EXPECT_EQ(on["cpu"], 4);
    EXPECT_EQ(service.capacity_left()["total"], 0);
    service.remove("cam0");
    service.remove("cam2");
    EXPECT_EQ(service.capacity_left()["total"], 2);
    service.add(stream("late"));
    for (const nlohmann::json& s : service.list())
        if (s["name"] == "late") {
            EXPECT_FALSE(s["decoding"].contains("over_capacity")) << s.dump();
        }
}

// Placed as one camera when it starts, a stream is counted by its real size once its input opens:
// a 480x270 clip at 30 fps is a sixteenth of a 1080p30 camera (the floor of a tenth), which GET
// /streams shows and what is left gains back.
TEST(StreamService, AStreamIsCountedByItsSizeOnceItsInputOpens) {
    const std::string dir = (std::filesystem::temp_directory_path() / ("vf-size-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    vf::test::ClipSpec clip;
    clip.path = dir + "/small.mkv";
    clip.width = 480;
    clip.height = 270;
    clip.frame_rate = {30, 1};
    clip.frames = 30;
    clip.audio = false;
    vf::test::write_clip(clip);

    StreamService service(2);
    service.set_gpus({0}, by_load(4, 4.5));
    // Paced, so that it is still running when read; CPU filtering: counted on the CPU decoders.
    service.add(make_stream_config(
        "small", {{"input", clip.path}, {"output", "null"}, {"device", "cpu"}, {"filter", "sobel"}, {"realtime", "true"}}, {}));
    double load = -1;
    for (int i = 0; i < 200 && load != kLeastLoad; ++i) {
        for (const nlohmann::json& s : service.list())
            if (s["name"] == "small" && s.contains("decoding")) load = s["decoding"]["load"].get<double>();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_DOUBLE_EQ(load, kLeastLoad) << "480x270 at 30 fps: 0.0625 of a camera, counted as the floor";
    EXPECT_EQ(service.capacity_left()["cpu"], 4) << "4.5 - 0.1, floored (3 while it counted as a camera)";
    const std::string metrics = service.metrics();
    for (const char* line : {"vfilter_stream_decoder{stream=\"small\",decoder=\"cpu\"} 1",
                             "vfilter_stream_decoder_load_streams{stream=\"small\"} 0.1", "vfilter_stream_over_capacity{stream=\"small\"} 0",
                             "vfilter_stream_decoder_moves_total{stream=\"small\"} 0"})
        EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
    service.remove("small");
    EXPECT_EQ(service.capacity_left()["cpu"], 4);
    std::filesystem::remove_all(dir);
}
