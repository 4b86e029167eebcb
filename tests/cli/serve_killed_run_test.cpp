// What `vfilter serve` finds of a run that was killed (SIGKILL, a power cut) when it starts again:
// a segmented recording's last segment cut inside a fragment, and the next one opened with its
// header alone. Systemd restarts a killed serve (Restart=on-failure; tests/systemd) and the
// recordings must then all play: the cut one is cut back to its last whole fragment, the empty
// one removed, and nothing else touched.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;
namespace fs = std::filesystem;

std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Top-level MP4 boxes: (type, offset, size).
struct Box {
    std::string type;
    size_t at = 0, size = 0;
};
std::vector<Box> top_level_boxes(const std::string& mp4) {
    std::vector<Box> boxes;
    for (size_t at = 0; at + 8 <= mp4.size();) {
        const auto* p = reinterpret_cast<const unsigned char*>(mp4.data() + at);
        const size_t size = (size_t(p[0]) << 24) | (size_t(p[1]) << 16) | (size_t(p[2]) << 8) | p[3];
        if (size < 8) break;
        boxes.push_back({mp4.substr(at + 4, 4), at, size});
        at += size;
    }
    return boxes;
}

TEST(ServeKilledRun, ARestartLeavesEverySegmentPlayableAndTouchesNoWholeOne) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: cam, input: 'pattern://?size=160x120&rate=10', output: " << dir
                                         << "/cam.mp4, segment: 2}\n";
    const std::vector<std::string> args = {VFILTER_BIN, "serve", "--config", dir + "/streams.yaml"};
    {
        ChildProcess first(args, dir + "/first.log");
        ASSERT_TRUE(first.wait_for_log("[cam] output:", 30)) << first.log();
        for (int i = 0; i < 200 && !fs::exists(dir + "/cam-00002.mp4"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        first.signal(SIGTERM);
        ASSERT_EQ(first.wait(30), 0) << first.log();
    }
    // The state a SIGKILL leaves: the segment being written cut inside its last fragment, and the
    // next one opened by the muxer with its header alone.
    std::map<std::string, std::string> whole;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".mp4") whole[e.path().string()] = bytes_of(e.path().string());
    ASSERT_GE(whole.size(), 3u);
    const std::string model = bytes_of(dir + "/cam-00001.mp4");
    const std::vector<Box> boxes = top_level_boxes(model);
    size_t first_moof = 0, last_mdat = 0;
    int fragments = 0;
    for (const Box& b : boxes) {
        if (b.type == "moof" && first_moof == 0) first_moof = b.at;
        if (b.type == "mdat") last_mdat = b.at, ++fragments;
    }
    ASSERT_GT(first_moof, 0u) << "not a fragmented MP4";
    ASSERT_GE(fragments, 2) << "a 2 s segment of 1 s fragments";
    const int next = static_cast<int>(whole.size());
    char cut_name[64], empty_name[64];
    std::snprintf(cut_name, sizeof cut_name, "/cam-%05d.mp4", next);
    std::snprintf(empty_name, sizeof empty_name, "/cam-%05d.mp4", next + 1);
    std::ofstream(dir + cut_name, std::ios::binary) << model.substr(0, last_mdat + 100);
    std::ofstream(dir + empty_name, std::ios::binary) << model.substr(0, first_moof);
    ASSERT_FALSE(check_recording(dir + empty_name, false).clean) << "a header alone must not play";

    ChildProcess again(args, dir + "/again.log");
    ASSERT_TRUE(again.wait_for_log("[cam] output:", 30)) << again.log();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    again.signal(SIGTERM);
    ASSERT_EQ(again.wait(30), 0) << again.log();

    // The header alone is gone (the new run may take its number again: the loop below plays it).
    EXPECT_TRUE(!fs::exists(dir + empty_name) || fs::file_size(dir + empty_name) != first_moof) << again.log();
    ASSERT_TRUE(fs::exists(dir + cut_name)) << again.log();
    EXPECT_LT(fs::file_size(dir + cut_name), last_mdat + 100) << "cut back to its last whole fragment";
    for (const auto& [path, bytes] : whole) EXPECT_EQ(bytes_of(path), bytes) << path << ": a whole segment was changed";
    int segments = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".mp4") continue;
        ++segments;
        const RecordingCheck r = check_recording(e.path().string(), false);
        EXPECT_TRUE(r.clean) << e.path() << ": " << r.errors;
    }
    EXPECT_GT(segments, static_cast<int>(whole.size()) + 1) << "the new run recorded too";
}

}  // namespace
}  // namespace vf
