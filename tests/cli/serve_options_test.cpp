// `vfilter serve`'s command line: what --help lists (few options, no GPU model's figures), what
// serve says it needs, and --demo, which runs with nothing given.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/serve_config.hpp"
#include "cli/serve_fixture.hpp"

namespace vf {
namespace {

using namespace serve_fixture;

// The option lines of `vfilter serve --help`: those starting "  -" (-h,--help among them).
std::vector<std::string> help_options(const std::string& help) {
    std::vector<std::string> options;
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("  -", 0) == 0) options.push_back(line);
    return options;
}

// The options a user may need to give; the rarer settings are the file's serve: block, and what
// serve measures and decides for itself is no option at all (docs/serve.md, "Options").
TEST(ServeOptions, HelpListsFifteenOptionsAtMostAndNoGpuModel) {
    const CommandResult help = run_vfilter({"serve", "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.output;
    const std::vector<std::string> options = help_options(help.output);
    ASSERT_GE(options.size(), 10u) << help.output;
    EXPECT_LE(options.size(), 15u) << help.output;
    EXPECT_EQ(options.front().rfind("  -h,--help", 0), 0u) << "counted with --help: " << options.front();
    for (const char* gone : {"--batch-wait", "--decoder-placement", "--decoder-moves", "--nvdec-capacity", "--nvdec-slots",
                             "--nvdec-share", "--media-root", "--max-streams", "--stats-json", "--shard-plan"})
        EXPECT_EQ(help.output.find(gone), std::string::npos) << gone << " is no command-line option of serve";
    EXPECT_NE(help.output.find("shard-plan"), std::string::npos) << "the shard plan is a sub-mode: " << help.output;
    const std::regex gpu_model(R"((^|[^A-Za-z0-9])([AHLBV]\d{2,3}|RTX|GeForce|Tesla|Quadro)([^A-Za-z0-9]|$))");
    std::smatch found;
    EXPECT_FALSE(std::regex_search(help.output, found, gpu_model)) << "names a GPU model: '" << found.str(0) << "'";
    const CommandResult gone = run_vfilter({"serve", "--config", "x.yaml", "--batch-wait", "5"});
    EXPECT_EQ(gone.exit_code, 2) << gone.output;
}

// shard-plan: each stream's shard of COUNT, one per line, nothing started; a count that is no
// whole number is refused.
TEST(ServeOptions, ShardPlanPrintsEachStreamsShard) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/s.yaml") << "defaults: {input: a.mkv, output: 'null'}\nstreams:\n  - {name: a}\n  - {name: b}\n";
    const CommandResult plan = run_vfilter({"serve", "shard-plan", "2", "--config", dir + "/s.yaml"});
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    EXPECT_EQ(plan.output, "a " + std::to_string(shard_of("a", 2)) + "\nb " + std::to_string(shard_of("b", 2)) + "\n");
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/s.yaml", "shard-plan", "x"}).exit_code, 2);
    EXPECT_EQ(run_vfilter({"serve", "--config", dir + "/s.yaml", "shard-plan"}).exit_code, 2);
}

// serve --demo: streams of built-in pictures, each with its own filter, running with no camera,
// no file and no config, their frames counting up; the address printed; nothing written.
TEST(ServeDemo, RunsBuiltInStreamsWithNothingToGive) {
    const std::string dir = temp_dir();
    ChildProcess p({VFILTER_BIN, "serve", "--demo", "3", "--api-port", "0"}, dir + "/demo.log");
    ASSERT_TRUE(p.wait_for_log("in a browser", 30)) << p.log();
    const std::string log = p.log();
    const size_t at = log.find("open http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << log;
    const int port = std::atoi(log.c_str() + at + std::string("open http://127.0.0.1:").size());
    ASSERT_GT(port, 0) << log;
    std::set<std::string> filters;
    nlohmann::json list;
    for (int i = 0; i < 100; ++i) {
        list = body_json(api_request(port, "GET", "/streams"));
        if (list.is_array() && list.size() == 3 && std::all_of(list.begin(), list.end(), [](const nlohmann::json& s) {
                return s["state"] == "running" && s["frames_out"].get<int64_t>() > 10;
            }))
            break;
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_EQ(list.size(), 3u) << list.dump();
    for (const auto& s : list) {
        EXPECT_EQ(s["state"], "running") << s.dump();
        EXPECT_GT(s["frames_out"].get<int64_t>(), 10) << s.dump();
        // Frames flow, so the last seconds' latency is there (the page shows it), and its parts,
        // each within the whole (read a moment apart, so with some room).
        const double whole = s["latency_recent_p99_ms"].get<double>();
        EXPECT_GT(whole, 0) << s.dump();
        for (const char* part : {"decode", "queue", "filter", "write"}) {
            const double ms = s["latency_recent_p99_ms_parts"][part].get<double>();
            EXPECT_GT(ms, 0) << part << ": " << s.dump();
            EXPECT_LE(ms, whole * 1.5 + 5) << part << ": " << s.dump();
        }
        EXPECT_EQ(s["input"].get<std::string>().rfind("pattern://", 0), 0u) << s.dump();
        EXPECT_EQ(s["output"], "null") << s.dump();
        filters.insert(s["filter"].get<std::string>());
    }
    EXPECT_EQ(filters.size(), 3u) << "each stream shows another filter";
    p.signal(SIGTERM);
    EXPECT_EQ(p.wait(30), 0) << p.log();
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().filename() != "demo.log";
    EXPECT_EQ(files, 0u) << "the demo wrote a file";
}

TEST(ServeDemo, ServeSaysWhatItNeeds) {
    const CommandResult none = run_vfilter({"serve"});
    EXPECT_EQ(none.exit_code, 2) << none.output;
    EXPECT_NE(none.output.find("--demo"), std::string::npos) << "names the way to try it: " << none.output;
    const CommandResult both = run_vfilter({"serve", "--demo", "--config", "x.yaml"});
    EXPECT_EQ(both.exit_code, 2) << both.output;
    EXPECT_NE(both.output.find("leave out --config"), std::string::npos) << both.output;
    const CommandResult many = run_vfilter({"serve", "--demo", "40"});
    EXPECT_EQ(many.exit_code, 2) << many.output;
}

}  // namespace
}  // namespace vf
