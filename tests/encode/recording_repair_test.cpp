// Recordings cut short by a full disk (encode/recording_repair.cpp): a fragmented MP4 cut at any
// byte is cut back to its last complete fragment and then decodes without one error line, keeping
// every fragment that was whole; one cut before its first fragment (an empty file included) is
// removed; other containers are left as written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "encode/recording_repair.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

namespace fs = std::filesystem;

// 3 s at 30 fps, a keyframe (and so a fragment) every 10 frames.
std::string fragmented_clip(const std::string& dir, const std::string& ext = "mp4") {
    const std::string path = dir + "/whole." + ext;
    std::vector<std::string> cmd = {"ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30", "-t", "3",
                                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p"};
    if (ext == "mp4") cmd.insert(cmd.end(), {"-movflags", "+frag_keyframe+empty_moov+default_base_moof"});
    cmd.push_back(path);
    const test::CommandResult r = test::run_command(cmd, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return path;
}

std::string cut_copy(const std::string& whole, const std::string& name, int64_t bytes) {
    const std::string path = fs::path(whole).parent_path().string() + "/" + name;
    fs::copy_file(whole, path, fs::copy_options::overwrite_existing);
    fs::resize_file(path, static_cast<uintmax_t>(bytes));
    return path;
}

bool have_ffmpeg() { return test::run_command({"ffmpeg", "-version"}, 30).exit_code == 0; }

TEST(RecordingRepair, AFragmentedMp4CutAnywhereKeepsEveryWholeFragmentAndPlaysClean) {
    if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg command is missing (scripts/install_deps.sh --test installs it)";
    const std::string dir = test::temp_dir();
    const std::string whole = fragmented_clip(dir);
    const int64_t size = static_cast<int64_t>(fs::file_size(whole));
    EXPECT_EQ(mp4_whole_length(whole), size) << "a finished file is whole";
    EXPECT_EQ(repair_cut_recording(whole).outcome, CutRepair::Outcome::Whole);
    const int all_frames = test::check_recording(whole).frames;
    ASSERT_EQ(all_frames, 90);

    int previous_frames = 0, cuts = 0;
    for (int64_t at = size / 9; at < size; at += size / 9 + 37) {  // odd steps: inside moofs and mdats alike
        const std::string cut = cut_copy(whole, "cut-" + std::to_string(at) + ".mp4", at);
        const CutRepair r = repair_cut_recording(cut);
        ASSERT_NE(r.outcome, CutRepair::Outcome::Left) << at << ": " << r.why;
        if (r.outcome == CutRepair::Outcome::Removed) {
            EXPECT_FALSE(fs::exists(cut));
            continue;
        }
        ++cuts;
        EXPECT_LE(r.bytes_after, at);
        EXPECT_EQ(static_cast<int64_t>(fs::file_size(cut)), r.bytes_after);
        const test::RecordingCheck c = test::check_recording(cut);
        EXPECT_TRUE(c.clean) << "cut at " << at << " of " << size << ": " << c.errors;
        EXPECT_EQ(c.frames % 10, 0) << "whole fragments of 10 frames only: cut at " << at;
        EXPECT_GE(c.frames, previous_frames) << "a later cut keeps at least as much";
        // Nothing whole is lost: the next fragment's end lies beyond the cut.
        EXPECT_GT(c.frames + 10, static_cast<int>(90 * at / size) - 10) << "cut at " << at;
        previous_frames = c.frames;
    }
    EXPECT_GE(cuts, 6);
}

TEST(RecordingRepair, AFileCutBeforeItsFirstFragmentIsRemoved) {
    if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg command is missing (scripts/install_deps.sh --test installs it)";
    const std::string dir = test::temp_dir();
    const std::string whole = fragmented_clip(dir);
    for (const int64_t at : {int64_t(0), int64_t(20), mp4_whole_length(cut_copy(whole, "header.mp4", 700)), int64_t(1500)}) {
        if (at < 0) continue;
        const std::string cut = cut_copy(whole, "early.mp4", at);
        const CutRepair r = repair_cut_recording(cut);
        EXPECT_EQ(r.outcome, CutRepair::Outcome::Removed) << "cut at " << at << ": " << r.why;
        EXPECT_FALSE(fs::exists(cut)) << at;
    }
}

TEST(RecordingRepair, OtherContainersAreLeftAsWritten) {
    if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg command is missing (scripts/install_deps.sh --test installs it)";
    const std::string dir = test::temp_dir();
    const std::string whole = fragmented_clip(dir, "mkv");
    const int64_t size = static_cast<int64_t>(fs::file_size(whole));
    const std::string cut = cut_copy(whole, "cut.mkv", size / 2);
    const CutRepair r = repair_cut_recording(cut);
    EXPECT_EQ(r.outcome, CutRepair::Outcome::Left);
    EXPECT_EQ(static_cast<int64_t>(fs::file_size(cut)), size / 2);
}

}  // namespace
}  // namespace vf
