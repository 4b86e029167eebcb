// `vfilter batch`: a list of files split into shards, outputs under their final names only once
// complete, reruns that skip what is done and redo what a stopped or killed run lost.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/cli/batch.hpp"
#include "common/error.hpp"
#include "support/child_process.hpp"
#include "support/clip_writer.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

namespace fs = std::filesystem;
using namespace test;

class Batch : public ::testing::Test {
protected:
    void SetUp() override { dir = temp_dir(); }

    // n clips in dir/in, listed (relative to the list) in dir/list.txt with a comment and a blank line.
    void make_clips(int n, int frames = 12, int w = 64, int h = 48) {
        fs::create_directories(dir + "/in");
        std::ofstream list(dir + "/list.txt");
        list << "# the clips\n\n";
        for (int i = 0; i < n; ++i) {
            ClipSpec c;
            c.path = dir + "/in/clip" + std::to_string(i) + ".mkv";
            c.frames = frames;
            c.width = w;
            c.height = h;
            c.seed = 10u + i;
            write_clip(c);
            list << "in/clip" << i << ".mkv\n";
        }
    }
    std::vector<std::string> outputs() const {
        std::vector<std::string> names;
        if (fs::exists(dir + "/out"))
            for (const auto& e : fs::directory_iterator(dir + "/out")) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    CommandResult batch(std::vector<std::string> extra) {
        std::vector<std::string> args = {"batch", "--list", dir + "/list.txt", "--out-dir", dir + "/out", "--out-ext", "mkv",
                                         "-f", "sobel", "--codec", "ffv1", "--no-progress"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_vfilter(args);
    }
    std::string dir;
};

TEST(BatchShard, ParsesIndexOverCount) {
    int i = -1, n = -1;
    std::string why;
    EXPECT_TRUE(parse_shard("2/5", &i, &n, &why));
    EXPECT_EQ(i, 2);
    EXPECT_EQ(n, 5);
    // A StatefulSet pod's name stands for its ordinal.
    EXPECT_TRUE(parse_shard("vfilter-3/4", &i, &n, &why));
    EXPECT_EQ(i, 3);
    EXPECT_EQ(n, 4);
    EXPECT_TRUE(parse_shard("my-vfilter-0/1", &i, &n, &why));
    EXPECT_EQ(i, 0);
    for (const char* bad : {"5/5", "-1/3", "1/0", "1", "1/2x", "a/b", "", "vfilter-4/4", "vfilter-/4", "vfilter/4", "vfilter-1x/4"})
        EXPECT_FALSE(parse_shard(bad, &i, &n, &why)) << bad;
    EXPECT_EQ(incomplete_name("/o/clip.mkv"), "/o/clip.incomplete.mkv");
}

// Three shards take every input exactly once, in the list's order; each output holds every frame.
TEST_F(Batch, ShardsSplitTheListAndEachOutputIsWrittenOnce) {
    make_clips(7);
    std::map<std::string, int> written;
    for (int s = 0; s < 3; ++s) {
        BatchOptions o;
        o.list = dir + "/list.txt";
        o.out_dir = dir + "/out";
        o.out_ext = "mkv";
        o.shard_index = s;
        o.shard_count = 3;
        const std::vector<BatchItem> plan = plan_batch(o);
        EXPECT_EQ(plan.size(), s == 0 ? 3u : 2u) << "shard " << s;  // positions 0 3 6, 1 4, 2 5
        for (const BatchItem& item : plan) ++written[item.output];
        const CommandResult r = batch({"--shard", std::to_string(s) + "/3"});
        ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    EXPECT_EQ(written.size(), 7u);
    for (const auto& [name, times] : written) EXPECT_EQ(times, 1) << name;
    const std::vector<std::string> names = outputs();
    ASSERT_EQ(names.size(), 7u);
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(names[i], "clip" + std::to_string(i) + ".mkv");
        EXPECT_EQ(read_video_frames(dir + "/out/" + names[i]).size(), 12u) << names[i];
    }
}

// A rerun skips complete outputs (untouched), and redoes one whose run was killed: a leftover
// .incomplete file (and its .partial) is never taken for an output.
TEST_F(Batch, ARerunSkipsWhatIsCompleteAndRedoesWhatWasLost) {
    make_clips(3);
    ASSERT_EQ(batch({}).exit_code, 0);
    const auto before = fs::last_write_time(dir + "/out/clip0.mkv");
    fs::remove(dir + "/out/clip1.mkv");
    std::ofstream(dir + "/out/clip1.incomplete.mkv") << "half a file";
    std::ofstream(dir + "/out/clip1.incomplete.mkv.partial") << "half a file";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const CommandResult r = batch({"--stats-json", dir + "/stats.json"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("1 filtered, 2 already complete"), std::string::npos) << r.output;
    // --stats-json: one entry per file of the shard, with the run's own stats where it ran.
    std::ifstream stats_file(dir + "/stats.json");
    const nlohmann::json stats = nlohmann::json::parse(stats_file, nullptr, false);
    ASSERT_TRUE(stats.is_object()) << "not JSON";
    ASSERT_EQ(stats["files"].size(), 3u) << stats.dump(2);
    EXPECT_EQ(stats["files"][0]["state"], "complete");
    EXPECT_EQ(stats["files"][1]["state"], "filtered");
    EXPECT_EQ(stats["files"][1]["stats"]["frames_out"], 12) << stats.dump(2);
    EXPECT_EQ(stats["files"][2]["state"], "complete");
    EXPECT_FALSE(fs::exists(dir + "/out/clip1.incomplete.mkv.stats.json")) << "a run's own stats file is left behind";
    EXPECT_EQ(fs::last_write_time(dir + "/out/clip0.mkv"), before) << "a complete output was rewritten";
    EXPECT_EQ(outputs(), (std::vector<std::string>{"clip0.mkv", "clip1.mkv", "clip2.mkv"}));
    EXPECT_EQ(read_video_frames(dir + "/out/clip1.mkv").size(), 12u);
    // -y redoes everything.
    ASSERT_EQ(batch({"-y"}).exit_code, 0);
    EXPECT_NE(fs::last_write_time(dir + "/out/clip0.mkv"), before);
}

// Ctrl-C in the middle of a file: that file is not published (a rerun would take a truncated file
// for a complete one), the files finished before are, exit 130 says work remains; the rerun ends it.
TEST_F(Batch, AStoppedBatchPublishesNoPartOfAFile) {
    make_clips(3, 60);
    // --realtime: each file takes its 2.4 s, so the signal lands inside the second one.
    ChildProcess p({VFILTER_BIN, "batch", "--list", dir + "/list.txt", "--out-dir", dir + "/out", "--out-ext", "mkv", "-f",
                    "sobel", "--codec", "ffv1", "--no-progress", "--realtime"},
                   dir + "/batch.log");
    for (int i = 0; i < 200 && !fs::exists(dir + "/out/clip0.mkv"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(dir + "/out/clip0.mkv")) << p.log();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    p.signal(SIGINT);
    EXPECT_EQ(p.wait(30), 130) << p.log();
    EXPECT_EQ(outputs(), (std::vector<std::string>{"clip0.mkv"})) << p.log();
    EXPECT_EQ(read_video_frames(dir + "/out/clip0.mkv").size(), 60u);
    const CommandResult r = batch({});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(outputs(), (std::vector<std::string>{"clip0.mkv", "clip1.mkv", "clip2.mkv"}));
    for (const char* name : {"clip1.mkv", "clip2.mkv"}) EXPECT_EQ(read_video_frames(dir + "/out/" + name).size(), 60u) << name;
}

// One bad input fails alone (its code at the end, the others filtered); inputs that would write
// one output name are refused before anything is written.
TEST_F(Batch, ABadInputFailsAloneAndCollidingNamesAreRefused) {
    make_clips(2);
    std::ofstream(dir + "/list.txt", std::ios::app) << "in/missing.mkv\nin/clip1.mkv.txt\n";
    std::ofstream(dir + "/in/clip1.mkv.txt") << "not a video\n";
    const CommandResult r = batch({"--stats-json", dir + "/stats.json"});
    EXPECT_EQ(r.exit_code, exit_code_for(ErrorCategory::Input)) << r.output;
    std::ifstream stats_file(dir + "/stats.json");
    const nlohmann::json stats = nlohmann::json::parse(stats_file, nullptr, false);
    ASSERT_EQ(stats["files"].size(), 4u) << stats.dump(2);
    EXPECT_EQ(stats["files"][2]["state"], "failed");
    EXPECT_EQ(stats["files"][2]["exit_code"], 3);
    EXPECT_NE(stats["files"][2]["error"].get<std::string>().find("missing.mkv"), std::string::npos);
    EXPECT_NE(r.output.find("missing.mkv"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 filtered, 0 already complete, 2 failed"), std::string::npos) << r.output;
    EXPECT_EQ(outputs(), (std::vector<std::string>{"clip0.mkv", "clip1.mkv"})) << "nothing left of the failed inputs";

    fs::remove_all(dir + "/out");
    fs::create_directories(dir + "/other");
    fs::copy_file(dir + "/in/clip0.mkv", dir + "/other/clip0.mkv");
    std::ofstream(dir + "/list.txt") << "in/clip0.mkv\nother/clip0.mkv\n";
    const CommandResult clash = batch({"--shard", "1/2"});
    EXPECT_EQ(clash.exit_code, exit_code_for(ErrorCategory::Usage)) << clash.output;
    EXPECT_NE(clash.output.find("would both write"), std::string::npos) << clash.output;
    EXPECT_TRUE(outputs().empty());
    EXPECT_EQ(run_vfilter({"batch", "--list", dir + "/list.txt", "--out-dir", dir + "/out", "--shard", "3/3"}).exit_code, 2);
    EXPECT_EQ(run_vfilter({"batch", "--list", dir + "/nope.txt", "--out-dir", dir + "/out"}).exit_code, 2);
    EXPECT_EQ(run_vfilter({"batch", "--list", dir + "/list.txt", "--out-dir", dir + "/out", "-o", "x.mkv"}).exit_code, 2);
    // No disk floor is kept for a batch's files: refused rather than silently ignored.
    const CommandResult floor = batch({"--segment", "2", "--min-free", "5%"});
    EXPECT_EQ(floor.exit_code, 2) << floor.output;
    EXPECT_NE(floor.output.find("--min-free applies to a single run's --segment recordings and to serve"), std::string::npos)
        << floor.output;
    EXPECT_TRUE(outputs().empty());
}

}  // namespace
}  // namespace vf
