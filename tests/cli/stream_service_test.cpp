// StreamService's own bookkeeping over a long life: what it keeps of the streams that come and go.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "app/serve_config.hpp"
#include "app/stream_service.hpp"

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
    DecoderCapacity capacity;
    capacity.by_load = true;
    capacity.nvdec_streams = 4;
    capacity.cpu_streams = 4;
    service.set_gpus({0}, capacity);
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
