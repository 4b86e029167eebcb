// Output files are created by vfilter itself, exclusively and never through a symbolic link, and
// a file vfilter did not write is never overwritten: not at OUT.partial before a run, not at OUT
// when it appears while recording, not at the name of a segment still to come. Each test plants
// the file (or link) the way someone with access to the output folder would, with real runs of
// the vfilter binary and real timing (a pattern:// input is paced at its frame rate), and looks
// at the outcome: the planted file's bytes, the recording, the exit code and the message. The
// message is part of the outcome: with exit 4, the error line naming the refused file (or where
// the recording went instead) is all a user or a script is told.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "support/child_process.hpp"
#include "support/clip_writer.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace exclusive_outputs_test {

using namespace test;

constexpr int kOk = 0, kOutput = 4;
constexpr const char* kPrecious = "bytes vfilter must never touch\n";
// 25 frames a second, paced like a camera: a run of N frames lasts N / 25 s.
constexpr const char* kPaced = "pattern://?size=64x48&rate=25";

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

bool is_link(const std::string& path) {
    struct stat st {};
    return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool wait_for_file(const std::string& path, double timeout_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < until) {
        if (file_exists(path)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

class ExclusiveOutputs : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        victim = dir + "/victim.txt";
        write_text(victim, kPrecious);
    }
    std::string clip(int frames) {
        ClipSpec c;
        c.path = dir + "/in.mkv";
        c.width = 64;
        c.height = 48;
        c.frames = frames;
        write_clip(c);
        return c.path;
    }
    std::vector<std::string> vfilter_args(std::vector<std::string> args) {
        args.insert(args.begin(), {VFILTER_BIN, "--no-progress"});
        return args;
    }
    std::string dir, victim;
};

// A link at OUT.partial (pointing at a file of someone else's) is refused, with -y too: the run
// fails at once naming it, the file it points to keeps its bytes, the link stays as it was, and
// nothing is published under OUT.
TEST_F(ExclusiveOutputs, ALinkAtThePartialNameIsNeverWrittenThrough) {
    const std::string in = clip(10), out = dir + "/out.mp4";
    ASSERT_EQ(symlink(victim.c_str(), (out + ".partial").c_str()), 0);
    for (const bool overwrite : {false, true}) {
        std::vector<std::string> args = {"-i", in, "-f", "sobel", "-o", out};
        if (overwrite) args.push_back("-y");
        const CommandResult r = run_vfilter(args, 60);
        EXPECT_EQ(r.exit_code, kOutput) << r.output;
        EXPECT_NE(r.output.find("out.mp4.partial' is a symbolic link"), std::string::npos) << r.output;
        EXPECT_EQ(read_file(victim), kPrecious) << "written through the link" << (overwrite ? " with -y" : "");
        EXPECT_TRUE(is_link(out + ".partial"));
        EXPECT_FALSE(file_exists(out));
    }
}

// A killed run's OUT.partial (a file of its own) is kept: the next run refuses, says what the
// file likely is, and leaves its bytes; -y replaces it.
TEST_F(ExclusiveOutputs, AKilledRunsPartialIsKeptUntilTheUserDecides) {
    const std::string in = clip(10), out = dir + "/out.mp4";
    write_text(out + ".partial", kPrecious);
    const CommandResult refused = run_vfilter({"-i", in, "-f", "sobel", "-o", out}, 60);
    EXPECT_EQ(refused.exit_code, kOutput) << refused.output;
    EXPECT_NE(refused.output.find("out.mp4.partial' exists (a run that was killed leaves one"), std::string::npos) << refused.output;
    EXPECT_EQ(read_file(out + ".partial"), kPrecious);
    EXPECT_FALSE(file_exists(out));
    const CommandResult replaced = run_vfilter({"-i", in, "-f", "sobel", "-o", out, "-y"}, 60);
    EXPECT_EQ(replaced.exit_code, 0) << replaced.output;
    EXPECT_EQ(check_recording(out).frames, 10);
    EXPECT_FALSE(file_exists(out + ".partial"));
}

// A file that appears under OUT while the run writes OUT.partial is left as it is; the recording
// is kept beside it as OUT-2 (whole and playable), and the run exits 4 saying so, so that a script
// never takes the other file for the recording.
TEST_F(ExclusiveOutputs, AFileThatAppearsAtTheNameWhileRecordingIsNotReplaced) {
    const std::string out = dir + "/out.mp4";
    ChildProcess run(vfilter_args({"-i", kPaced, "--frames", "75", "--fragmented", "no", "-o", out}), dir + "/run.log");
    ASSERT_TRUE(wait_for_file(out + ".partial", 20)) << run.log();
    write_text(out, kPrecious);
    EXPECT_EQ(run.wait(60), kOutput) << run.log();
    EXPECT_EQ(read_file(out), kPrecious) << "the file that appeared was replaced";
    EXPECT_NE(run.log().find("recording was kept as '" + dir + "/out-2.mp4'"), std::string::npos) << run.log();
    const RecordingCheck kept = check_recording(dir + "/out-2.mp4");
    EXPECT_TRUE(kept.clean) << kept.errors;
    EXPECT_EQ(kept.frames, 75);
    EXPECT_FALSE(file_exists(out + ".partial"));
}

// -y replaces an existing regular output file, but never writes through a link at OUT.
TEST_F(ExclusiveOutputs, OverwriteReplacesARegularFileButNotALink) {
    const std::string in = clip(10), out = dir + "/out.mkv", linked = dir + "/linked.mkv";
    write_text(out, "an older run's output");
    CommandResult r = run_vfilter({"-i", in, "-f", "sobel", "-o", out, "-y"}, 60);
    EXPECT_EQ(r.exit_code, kOk) << r.output;
    EXPECT_EQ(check_recording(out).frames, 10);
    ASSERT_EQ(symlink(victim.c_str(), linked.c_str()), 0);
    r = run_vfilter({"-i", in, "-f", "sobel", "-o", linked, "-y"}, 60);
    EXPECT_EQ(r.exit_code, kOutput) << r.output;
    EXPECT_NE(r.output.find("is a symbolic link"), std::string::npos) << r.output;
    EXPECT_EQ(read_file(victim), kPrecious);
    EXPECT_TRUE(is_link(linked));
}

// A numbered segment series: a file planted under the name of a segment still to come is not
// overwritten. The recording stops there with exit 4 naming it; the segments before it are kept
// whole.
TEST_F(ExclusiveOutputs, AFilePlantedAtANumberedSegmentStillToComeIsNotOverwritten) {
    const std::string pattern = dir + "/rec-%03d.mkv";
    ChildProcess run(vfilter_args({"-i", kPaced, "--frames", "200", "--segment", "1", "-o", pattern}), dir + "/run.log");
    ASSERT_TRUE(wait_for_file(dir + "/rec-001.mkv", 20)) << run.log();
    write_text(dir + "/rec-003.mkv", kPrecious);
    EXPECT_EQ(run.wait(60), kOutput) << run.log();
    EXPECT_EQ(read_file(dir + "/rec-003.mkv"), kPrecious);
    EXPECT_NE(run.log().find("rec-003.mkv' exists and was not written by vfilter; refusing to overwrite it"), std::string::npos)
        << run.log();
    for (const char* name : {"/rec-000.mkv", "/rec-001.mkv", "/rec-002.mkv"}) {
        const RecordingCheck segment = check_recording(dir + name);
        EXPECT_TRUE(segment.clean) << name << ": " << segment.errors;
        EXPECT_GT(segment.frames, 0) << name;
    }
    EXPECT_FALSE(file_exists(dir + "/rec-004.mkv"));
}

// A dated segment series: links planted under the names of the next seconds (one of which a
// segment will take) are never written through.
TEST_F(ExclusiveOutputs, ALinkPlantedAtADatedSegmentStillToComeIsNeverWrittenThrough) {
    const std::string pattern = dir + "/cam-%Y%m%d-%H%M%S.mkv";
    ChildProcess run(vfilter_args({"-i", kPaced, "--frames", "250", "--segment", "2", "-o", pattern}), dir + "/run.log");
    ASSERT_TRUE(run.wait_for_log("output:", 20)) << run.log();
    const time_t now = std::time(nullptr);
    for (time_t t = now + 3; t <= now + 8; ++t) {  // segments start 2 s apart: three of them fall here
        std::tm local{};
        localtime_r(&t, &local);
        char name[64];
        std::strftime(name, sizeof name, "/cam-%Y%m%d-%H%M%S.mkv", &local);
        ASSERT_EQ(symlink(victim.c_str(), (dir + name).c_str()), 0) << name;
    }
    EXPECT_EQ(run.wait(60), kOutput) << run.log();
    EXPECT_NE(run.log().find("is a symbolic link; vfilter never writes through one"), std::string::npos) << run.log();
    EXPECT_EQ(read_file(victim), kPrecious) << "a segment was written through a link";
}

// HLS: a file planted under the name of a segment still to come is not replaced by the muxer's
// rename of its temporary file; what was written for it is kept beside it, and the run exits 4.
TEST_F(ExclusiveOutputs, AFilePlantedAtAnHlsSegmentStillToComeIsNotReplaced) {
    const std::string playlist = dir + "/live.m3u8";
    ChildProcess run(vfilter_args({"-i", kPaced, "--frames", "200", "--hls-time", "1", "-o", playlist}), dir + "/run.log");
    ASSERT_TRUE(wait_for_file(dir + "/live-00002.ts", 20)) << run.log();
    write_text(dir + "/live-00004.ts", kPrecious);
    EXPECT_EQ(run.wait(60), kOutput) << run.log();
    EXPECT_EQ(read_file(dir + "/live-00004.ts"), kPrecious);
    EXPECT_NE(run.log().find("live-00004.ts': it exists and was not written by vfilter"), std::string::npos) << run.log();
    EXPECT_GT(check_recording(dir + "/live-00004-2.ts", false).frames, 0) << "the segment written for that name is kept";
    EXPECT_FALSE(file_exists(dir + "/live-00004.ts.tmp"));
}

// A live HLS recording that starts again takes back its own files by their names. A hard link
// someone slipped in under one of those names (to a file elsewhere) is never written into: the
// name is given up and made anew, and the linked file keeps its bytes.
TEST_F(ExclusiveOutputs, ARestartedLiveHlsNeverWritesIntoAFileLinkedUnderItsNames) {
    const std::string playlist = dir + "/live.m3u8";
    const std::vector<std::string> args = {"-i", kPaced, "--realtime", "--frames", "50", "--hls-time", "1", "-o", playlist};
    const CommandResult first = run_vfilter(args, 60);
    ASSERT_EQ(first.exit_code, 0) << first.output;
    ASSERT_EQ(link(victim.c_str(), (playlist + ".tmp").c_str()), 0);
    for (int n = 1; n <= 9; ++n) {
        char name[64];
        std::snprintf(name, sizeof name, "/live-%05d.ts.tmp", n);
        ASSERT_EQ(link(victim.c_str(), (dir + name).c_str()), 0);
    }
    const CommandResult again = run_vfilter(args, 60);
    EXPECT_TRUE(read_file(victim) == kPrecious) << "written into a file linked under the output's names: " << again.output;
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(read_file(playlist).find("#EXTM3U"), std::string::npos);
}

}  // namespace exclusive_outputs_test
}  // namespace vf
