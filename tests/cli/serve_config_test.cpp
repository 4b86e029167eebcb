// `vfilter serve`'s config file and the API's JSON entries, read without starting serve: errors
// name the line, the stream and the field; environment variables fill values; GPUs listed and
// shards. The file's serve: block: serve_settings_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "app/serve/serve_command.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "common/error.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;
namespace fs = std::filesystem;

std::string usage_error(const std::string& yaml) {
    try {
        parse_serve_config(yaml, "streams.yaml");
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "(accepted)";
}

TEST(ServeConfig, ReadsDefaultsAndStreams) {
    const ServeConfig c = parse_serve_config(R"(
defaults:
  filter: sobel
  crf: 30
  on-overload: block
streams:
  - name: cam1
    input: a.mp4
    output: a-out.mp4
  - name: cam_2-b
    input: b.mp4
    output: "null"
    filter: gaussian=sigma=2
    low-latency: true
    realtime: false
)", "streams.yaml");
    ASSERT_EQ(c.streams.size(), 2u);
    EXPECT_EQ(c.streams[0].name, "cam1");
    EXPECT_EQ(c.streams[0].options.filter.chain.text(), "sobel");
    EXPECT_EQ(c.streams[0].options.output.crf.value_or(-1), 30);
    EXPECT_EQ(c.streams[0].options.pipeline.on_overload, OverloadPolicy::Block);
    EXPECT_EQ(c.streams[1].options.filter.chain.text(), "gaussian=sigma=2") << "the stream's own field wins over the default";
    EXPECT_TRUE(c.streams[1].options.pipeline.low_latency);
    EXPECT_EQ(preset_of(c.streams[1].options.output, c.streams[1].options.pipeline.low_latency), "superfast")
        << "as on the command line: low latency picks a faster preset";
    EXPECT_FALSE(c.streams[1].options.input.realtime);
    EXPECT_EQ(c.streams[1].options.output.path, "null");
}

TEST(ServeConfig, ErrorsNameTheLineTheStreamAndTheField) {
    EXPECT_NE(usage_error("streams:\n  - name: a\n    input: [x\n").find("streams.yaml:"), std::string::npos);
    const std::string unknown = usage_error("streams:\n  - name: cam1\n    input: a.mp4\n    output: b.mp4\n    colour: red\n");
    EXPECT_NE(unknown.find("streams.yaml:2:5"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("stream 'cam1'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("unknown field 'colour'"), std::string::npos) << unknown;
    const std::string bad_value = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, crf: 99}\n");
    EXPECT_NE(bad_value.find("stream 'cam1'"), std::string::npos) << bad_value;
    EXPECT_NE(bad_value.find("crf"), std::string::npos) << bad_value;
    const std::string filter = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, filter: blurry}\n");
    EXPECT_NE(filter.find("stream 'cam1': field 'filter': unknown filter 'blurry'"), std::string::npos) << filter;
    const std::string codec = usage_error("streams:\n  - {name: cam1, input: a.mp4, output: b.mp4, codec: nosuch}\n");
    EXPECT_NE(codec.find("stream 'cam1': field 'codec'"), std::string::npos) << codec;
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y}\n  - {name: a, input: x, output: z}\n").find("'a' is used twice"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: 'a b', input: x, output: y}\n").find("stream name 'a b'"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x}\n").find("field 'output' is missing"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {input: x, output: y}\n").find("field 'name' is missing"), std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, metrics-port: 9000}\n").find("belongs to the process"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, min-free: 5%}\n").find("the serve: block's min-free"),
              std::string::npos);
    EXPECT_NE(usage_error("defaults: {retain: 7d}\nstreams:\n  - {name: a, input: x, output: y.mp4}\n").find("add --segment"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y.mp4, segment: 60, retain-size: lots}\n")
                  .find("field 'retain-size': 'lots': expected a size"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: x, output: y, wait-for-input: maybe}\n").find("expected true or false"),
              std::string::npos);
    EXPECT_NE(usage_error("streams:\n  - {name: a, input: [x, y], output: y}\n").find("expected a single value"), std::string::npos);
    EXPECT_NE(usage_error("stream:\n  - {name: a}\n").find("unknown section 'stream'"), std::string::npos);
    EXPECT_NE(usage_error("defaults: {filter: sobel}\n").find("'streams:' must be a list"), std::string::npos);
    EXPECT_NE(usage_error("{[a]: 1}\n").find("streams.yaml"), std::string::npos);
}

TEST(ServeConfig, EnvironmentVariablesFillValues) {
    ::setenv("VF_TEST_CAM_URL", "rtsp://admin:s3cret@10.0.0.5/live", 1);
    const ServeConfig c = parse_serve_config("streams:\n  - {name: a, input: '${VF_TEST_CAM_URL}', output: a.mp4}\n", "s.yaml");
    EXPECT_EQ(c.streams[0].options.input.url, "rtsp://admin:s3cret@10.0.0.5/live");
    ::unsetenv("VF_TEST_CAM_URL");
    const std::string e = usage_error("streams:\n  - {name: a, input: '${VF_TEST_CAM_URL}', output: a.mp4}\n");
    EXPECT_NE(e.find("environment variable VF_TEST_CAM_URL is not set"), std::string::npos) << e;
}

// VFILTER_DEVICE (a Kubernetes overlay's choice) is every stream's default; a stream's own field wins.
TEST(ServeConfig, DeviceFromTheEnvironmentIsTheDefault) {
    ::setenv("VFILTER_DEVICE", "cpu", 1);
    const ServeConfig c = parse_serve_config("streams:\n  - {name: a, input: x.mp4, output: a.mp4}\n"
                                             "  - {name: b, input: x.mp4, output: b.mp4, device: cuda}\n", "s.yaml");
    ::unsetenv("VFILTER_DEVICE");
    EXPECT_EQ(c.streams[0].options.filter.device, DeviceChoice::Cpu);
    EXPECT_EQ(c.streams[1].options.filter.device, DeviceChoice::Cuda);
    const ServeConfig unset = parse_serve_config("streams:\n  - {name: a, input: x.mp4, output: a.mp4}\n", "s.yaml");
    EXPECT_EQ(unset.streams[0].options.filter.device, DeviceChoice::Auto);
}

TEST(ServeConfig, ApiEntriesAreReadLikeTheFile) {
    const StreamFields defaults = {{"filter", "sobel"}, {"codec", "ffv1"}};
    const std::string root = temp_dir();
    std::ofstream(root + "/x.mp4") << "x";
    ClientAccess files;
    files.media_root = files.recordings_root = root;
    const StreamConfig s = stream_from_json(R"({"name": "cam9", "input": "x.mp4", "output": "y.mkv", "crf": 20, "realtime": true})",
                                            defaults, checked_client_access(files));
    EXPECT_EQ(s.options.input.url, fs::canonical(root).string() + "/x.mp4") << "a client's name is resolved under its root";
    EXPECT_EQ(s.name, "cam9");
    EXPECT_EQ(s.options.filter.chain.text(), "sobel");
    EXPECT_TRUE(s.options.input.realtime);
    EXPECT_EQ(s.options.output.crf.value_or(-1), 20);
    EXPECT_THROW(stream_from_json("{not json", defaults), Error);
    EXPECT_THROW(stream_from_json(R"({"input": "x", "output": "y"})", defaults), Error);
    EXPECT_THROW(stream_from_json(R"({"name": "a", "input": "x", "output": "y", "filter": ["sobel"]})", defaults), Error);
    ::setenv("VF_TEST_SECRET", "hidden", 1);
    const StreamConfig literal = stream_from_json(R"({"name": "a", "input": "http://h/${VF_TEST_SECRET}", "output": "null"})", defaults);
    EXPECT_EQ(literal.options.input.url, "http://h/${VF_TEST_SECRET}") << "a client must not read the server's environment";
    ::unsetenv("VF_TEST_SECRET");
}

TEST(ServeConfig, LoopbackAddresses) {
    EXPECT_TRUE(is_loopback_address("127.0.0.1"));
    EXPECT_TRUE(is_loopback_address("127.8.9.10"));
    EXPECT_FALSE(is_loopback_address("0.0.0.0"));
    EXPECT_FALSE(is_loopback_address("10.0.0.1"));
    EXPECT_FALSE(is_loopback_address("localhost"));
}
TEST(ServeGpus, FewestStreamsFirstAndListsAreChecked) {
    EXPECT_EQ(least_loaded_gpu({0, 1}, {}), 0);
    EXPECT_EQ(least_loaded_gpu({0, 1}, {{0, 1}}), 1);
    EXPECT_EQ(least_loaded_gpu({0, 1}, {{0, 1}, {1, 1}}), 0) << "a tie goes to the first listed";
    EXPECT_EQ(least_loaded_gpu({3, 1}, {{3, 2}, {1, 2}}), 3);
    EXPECT_EQ(least_loaded_gpu({0, 1, 2}, {{0, 5}, {1, 0}, {2, 3}}), 1);
    EXPECT_EQ(parse_gpus("all", 0), std::vector<int>{});
    EXPECT_EQ(parse_gpus("all", 2), (std::vector<int>{0, 1}));
    EXPECT_EQ(parse_gpus("1,0", 2), (std::vector<int>{1, 0}));
    EXPECT_EQ(parse_gpus("0,1", 0), (std::vector<int>{0, 1})) << "without a GPU the list is kept (it places nothing real)";
    EXPECT_THROW(parse_gpus("2", 2), Error);
    EXPECT_THROW(parse_gpus("0,0", 2), Error);
    EXPECT_THROW(parse_gpus("0,", 2), Error);
    EXPECT_THROW(parse_gpus("-1", 2), Error);
    EXPECT_THROW(parse_gpus("", 2), Error);
}

TEST(ServeShards, EveryStreamHasOneShardAndRescalingMovesFew) {
    std::vector<std::string> names;
    for (int i = 0; i < 400; ++i) names.push_back("cam" + std::to_string(i));
    for (int n = 1; n <= 8; ++n) {
        std::vector<int> per_shard(static_cast<size_t>(n), 0);
        int moved = 0;
        for (const std::string& name : names) {
            const int k = shard_of(name, n);
            ASSERT_GE(k, 0);
            ASSERT_LT(k, n);
            EXPECT_EQ(shard_of(name, n), k) << "stable";
            ++per_shard[static_cast<size_t>(k)];
            if (n > 1 && shard_of(name, n - 1) != k) {
                ++moved;
                EXPECT_EQ(k, n - 1) << name << ": from N-1 to N shards a stream only moves to the new shard";
            }
        }
        for (int count : per_shard) {
            EXPECT_GT(count, 400 / n / 2) << "shards of " << n << " are balanced";
            EXPECT_LT(count, 400 / n * 3 / 2 + 2);
        }
        if (n > 1) {
            EXPECT_GT(moved, 400 / n / 2);
            EXPECT_LT(moved, 400 / n * 3 / 2) << "about 1/N move when going to N shards";
        }
    }
    ServeConfig config = parse_serve_config("defaults: {input: a.mkv, output: 'null'}\nstreams:\n"
                                            "  - {name: a}\n  - {name: b}\n  - {name: c}\n  - {name: d}\n  - {name: e}\n", "s.yaml");
    size_t total = 0;
    for (int k = 0; k < 3; ++k) total += shard_config(config, k, 3).streams.size();
    EXPECT_EQ(total, 5u);
}

}  // namespace
}  // namespace vf
