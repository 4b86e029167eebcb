// `vfilter serve` over time and across processes: shards of one file, GPUs listed, SIGHUP and the
// serve: block's watch-config applying an edited file while unchanged streams run on.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/serve_command.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "cli/serve_fixture.hpp"
#include "common/error.hpp"
#include "support/jpeg_decode.hpp"

namespace vf {
namespace {

using namespace serve_fixture;
namespace fs = std::filesystem;

TEST_F(Serve, ShardsSplitTheFileBetweenProcesses) {
    clip("a.mkv", 20, 1);
    std::string yaml = "defaults: {input: " + dir + "/a.mkv, codec: ffv1}\nstreams:\n";
    for (int i = 0; i < 6; ++i) yaml += "  - {name: cam" + std::to_string(i) + ", output: " + dir + "/cam" + std::to_string(i) + ".mkv}\n";
    write("streams.yaml", yaml);
    std::vector<std::string> served;
    for (int k = 0; k < 2; ++k) {
        const std::string stats = dir + "/s" + std::to_string(k) + ".json", file = "shard" + std::to_string(k) + ".yaml";
        settings["stats-json"] = stats;
        write(file, yaml + serve_block());
        const CommandResult r = run_vfilter({"serve", "--config", dir + "/" + file, "--shard", std::to_string(k) + "/2"});
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("shard " + std::to_string(k) + "/2:"), std::string::npos) << r.output;
        const nlohmann::json entries = nlohmann::json::parse(read_file(stats));
        for (const auto& [name, s] : entries.items()) {
            EXPECT_EQ(shard_of(name, 2), k);
            served.push_back(name);
        }
    }
    std::sort(served.begin(), served.end());
    EXPECT_EQ(served, (std::vector<std::string>{"cam0", "cam1", "cam2", "cam3", "cam4", "cam5"})) << "each stream in exactly one shard";
    for (int i = 0; i < 6; ++i) EXPECT_EQ(read_video_frames(dir + "/cam" + std::to_string(i) + ".mkv").size(), 20u);
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/streams.yaml", "--shard", "2/2"}).exit_code, 2);
    // A StatefulSet pod's name stands for its ordinal; shard-plan prints what each would serve.
    std::string discarded = "defaults: {input: " + dir + "/a.mkv, output: 'null'}\nstreams:\n";
    for (int i = 0; i < 6; ++i) discarded += "  - {name: cam" + std::to_string(i) + "}\n";
    settings["stats-json"] = dir + "/p.json";
    write("null.yaml", discarded + serve_block());
    const CommandResult pod = run_vfilter({"serve", "--config", dir + "/null.yaml", "--shard", "vfilter-1/2"});
    ASSERT_EQ(pod.exit_code, 0) << pod.output;
    EXPECT_EQ(nlohmann::json::parse(read_file(dir + "/p.json")).size(),
              nlohmann::json::parse(read_file(dir + "/s1.json")).size());
    const CommandResult plan = run_vfilter({"serve", "--config", dir + "/streams.yaml", "shard-plan", "3"});
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    std::string expected;
    for (int i = 0; i < 6; ++i) expected += "cam" + std::to_string(i) + " " + std::to_string(shard_of("cam" + std::to_string(i), 3)) + "\n";
    EXPECT_EQ(plan.output, expected);
}

TEST_F(Serve, GpuStreamsArePlacedOnTheListedGpusFewestFirst) {
    clip("a.mkv", 600, 1);
    std::string yaml = "defaults: {input: " + dir + "/a.mkv, output: 'null', realtime: true}\nstreams:\n";
    for (int i = 0; i < 4; ++i) yaml += "  - {name: g" + std::to_string(i) + "}\n";
    yaml += "  - {name: c, device: cpu}\n";
    write("streams.yaml", yaml);
    auto p = serve({"--api-port", "0", "--gpus", "0,1"});
    const int port = api_port(*p);
    if (port < 0 && p->wait(10) == 2 && p->log().find("does not exist") != std::string::npos)
        GTEST_SKIP() << "this machine has one GPU: --gpus 0,1 is refused, as it must be";
    ASSERT_GT(port, 0) << p->log();
    std::map<int, int> per_gpu;
    for (const auto& s : streams(port)) {
        if (s["name"] == "c") {
            EXPECT_FALSE(s.contains("gpu")) << "a CPU stream is placed on no GPU: " << s.dump();
            continue;
        }
        ++per_gpu[s["gpu"].get<int>()];
    }
    EXPECT_EQ(per_gpu, (std::map<int, int>{{0, 2}, {1, 2}}));
    EXPECT_EQ(status_of(api_request(port, "DELETE", "/streams/g1")), 200);
    EXPECT_EQ(status_of(api_request(port, "DELETE", "/streams/g3")), 200);  // GPU 1 is empty now, GPU 0 has 2
    const std::string r = api_request(port, "POST", "/streams", R"({"name": "g9", "input": ")" + dir + R"(/a.mkv", "output": "null"})");
    ASSERT_EQ(status_of(r), 201) << r;
    EXPECT_EQ(body_json(r)["gpu"], 1) << "the new stream goes to the GPU with the fewest: " << r;
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/streams.yaml", "--gpus", "0,x"}).exit_code, 2);
}

TEST_F(Serve, SighupAppliesTheEditedFileAndKeepsUnchangedStreamsRunning) {
    clip("a.mkv", 900, 1);
    const std::string head = "defaults: {realtime: true, output: 'null'}\nstreams:\n";
    write("streams.yaml", head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: b, input: " + dir + "/a.mkv}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    std::this_thread::sleep_for(1s);
    const int64_t a_before = stream(port, "a")["frames_in"].get<int64_t>();
    write("streams.yaml", head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: c, input: " + dir + "/a.mkv, filter: sobel}\n");
    p->signal(SIGHUP);
    ASSERT_TRUE(p->wait_for_log("SIGHUP: " + dir + "/streams.yaml applied", 30)) << p->log();
    ASSERT_TRUE(wait_state(port, "c", "running")) << p->log();
    std::this_thread::sleep_for(500ms);
    EXPECT_TRUE(stream(port, "b").is_null()) << "b left the file";
    // Restarted, it would count from 0 again: at 25 fps, fewer frames than before the reload.
    EXPECT_GT(stream(port, "a")["frames_in"].get<int64_t>(), a_before + 5) << "a was left running, not restarted";
    EXPECT_EQ(stream(port, "c")["filter"], "sobel");
    write("streams.yaml", "streams: [unclosed\n");
    p->signal(SIGHUP);
    ASSERT_TRUE(p->wait_for_log("nothing changed", 30)) << p->log();
    EXPECT_EQ(streams(port).size(), 2u);
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

// The serve: block's watch-config: the file is swapped the way the kubelet updates a ConfigMap volume (a new folder,
// then the ..data symlink renamed over), and serve applies it without a signal; a bad version is
// reported once and changes nothing.
TEST_F(Serve, WatchConfigAppliesAConfigMapSwappedInPlace) {
    clip("a.mkv", 900, 1);
    const std::string head = "defaults: {realtime: true, output: 'null'}\nstreams:\n";
    const auto publish = [&](int version, const std::string& text) {
        const std::string folder = dir + "/v" + std::to_string(version);
        fs::create_directories(folder);
        std::ofstream(folder + "/streams.yaml") << text << "\n" << serve_block();
        fs::create_directory_symlink(folder, dir + "/..data_tmp");
        fs::rename(dir + "/..data_tmp", dir + "/..data");
    };
    settings["watch-config"] = "0.2";
    publish(1, head + "  - {name: a, input: " + dir + "/a.mkv}\n");
    fs::remove(dir + "/streams.yaml");
    fs::create_symlink("..data/streams.yaml", dir + "/streams.yaml");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "a", "running")) << p->log();
    publish(2, head + "  - {name: a, input: " + dir + "/a.mkv}\n  - {name: b, input: " + dir + "/a.mkv, filter: sobel}\n");
    ASSERT_TRUE(wait_state(port, "b", "running")) << p->log();
    EXPECT_NE(p->log().find("watch-config: the file changed: " + dir + "/streams.yaml applied"), std::string::npos) << p->log();
    publish(3, "streams: [unclosed\n");
    ASSERT_TRUE(p->wait_for_log("nothing changed", 30)) << p->log();
    std::this_thread::sleep_for(1s);
    const std::string log = p->log();
    EXPECT_EQ(log.find("nothing changed"), log.rfind("nothing changed")) << "a bad file is reported once, not every look: " << log;
    EXPECT_EQ(streams(port).size(), 2u);
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30), 0) << p->log();
}

}  // namespace
}  // namespace vf
