// A filter string is parsed exactly once per change at every door: the command line (through the
// Job it runs), a serve config file's entry, an API client's POST /streams entry and its PUT
// /streams/NAME/filter. The chain is compiled there and carried compiled; the Job plans it for
// its input's frames without reading the text again. (GStreamer and Python: tests/gst,
// tests/python.)
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/cli.hpp"
#include "app/run/job.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/stream_service.hpp"
#include "common/error.hpp"
#include "config/filter_spec.hpp"

namespace vf {
namespace {

Command command_line(std::vector<std::string> words) {
    words.insert(words.begin(), "vfilter");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string state_of(const StreamService& service, const std::string& name) {
    for (const nlohmann::json& s : service.list())
        if (s["name"] == name) return s["state"];
    return "";
}

}  // namespace

TEST(FilterParseCount, CommandLineRunThroughTheJobParsesOnce) {
    const uint64_t before = filter_parse_count();
    const Command cmd = command_line({"-i", "pattern://?size=34x26&rate=30", "--frames", "3", "-f", "gaussian=sigma=1,sobel",
                                      "-o", "null", "--device", "cpu", "--no-progress", "-q"});
    ASSERT_EQ(cmd.kind, Command::Run);
    Job job(cmd.run);
    const JobResult result = job.run();
    EXPECT_EQ(result.stats.frames_out, 3);
    EXPECT_EQ(result.stats.filters, "gaussian=sigma=1,sobel");
    EXPECT_EQ(filter_parse_count() - before, 1u) << "parsed again between the command line and the frames";
}

TEST(FilterParseCount, CommandLineRefusesABadChainAtOnce) {
    const uint64_t before = filter_parse_count();
    const Command cmd = command_line({"-i", "pattern://?size=34x26", "-f", "sobel=scale=abc", "-o", "null"});
    EXPECT_EQ(cmd.kind, Command::Exit);
    EXPECT_EQ(cmd.exit_code, 2);
    EXPECT_EQ(filter_parse_count() - before, 1u);
}

TEST(FilterParseCount, ConfigFileEntriesParseOnceEach) {
    const uint64_t before = filter_parse_count();
    const ServeConfig c = parse_serve_config(
        "defaults:\n  output: 'null'\n  filter: sobel\n"
        "streams:\n"
        "  - name: a\n    input: pattern://?size=32x24\n    filter: gaussian=sigma=2\n"
        "  - name: b\n    input: pattern://?size=32x24\n",
        "serve.yaml");
    ASSERT_EQ(c.streams.size(), 2u);
    EXPECT_EQ(c.streams[0].options.filter.chain.text(), "gaussian=sigma=2");
    EXPECT_EQ(c.streams[1].options.filter.chain.text(), "sobel");
    EXPECT_EQ(filter_parse_count() - before, 2u) << "one parse per entry, the default's once for the entry that takes it";
}

TEST(FilterParseCount, ApiEntryParsesOnce) {
    const uint64_t before = filter_parse_count();
    const StreamConfig s =
        stream_from_json(R"({"name": "cam", "input": "pattern://?size=32x24", "output": "null", "filter": "emboss"})", {});
    EXPECT_EQ(s.options.filter.chain.text(), "emboss");
    EXPECT_EQ(filter_parse_count() - before, 1u);
}

// PUT /streams/NAME/filter: compiled once, checked, and swapped into the running job, which
// plans it for its frames without parsing it again; a refused chain changes nothing.
TEST(FilterParseCount, FilterChangeOfARunningStreamParsesOnce) {
    StreamService service(2);
    service.add(make_stream_config(
        "cam", {{"input", "pattern://?size=34x26&rate=30"}, {"output", "null"}, {"device", "cpu"}, {"filter", "sobel"}}, {}));
    for (int i = 0; i < 500 && state_of(service, "cam") != "running"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(state_of(service, "cam"), "running");
    uint64_t before = filter_parse_count();
    service.set_filter("cam", "gaussian=sigma=2,emboss");
    EXPECT_EQ(filter_parse_count() - before, 1u);
    EXPECT_EQ(service.list()[0]["filter"], "gaussian=sigma=2,emboss");
    before = filter_parse_count();
    EXPECT_ANY_THROW(service.set_filter("cam", "emboss=bias=x"));
    EXPECT_EQ(filter_parse_count() - before, 1u);
    EXPECT_EQ(service.list()[0]["filter"], "gaussian=sigma=2,emboss") << "a refused chain changed the stream";
    service.remove("cam");
}

}  // namespace vf
