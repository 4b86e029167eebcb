// Segmented recordings and HLS: separate playable files, a playlist that lists every segment, and a
// live camera's window that rolls on after a restart.
#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_F(Live, SegmentsAreSeparatePlayableFiles) {
    const std::string in = clip("in.mp4", "320x240", 4.5);
    const CommandResult r = run_vfilter({"-i", in, "-o", dir + "/seg.mp4", "--segment", "1"}, 60);
    ASSERT_EQ(r.exit_code, kOk) << r.output;
    int total = 0;
    for (int i = 0; i < 5; ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "/seg-%05d.mp4", i);
        const Decoded d = decode(dir + name);
        EXPECT_TRUE(d.clean) << name << ": " << d.errors;
        if (i < 4) {
            EXPECT_EQ(d.frames, 30) << name << ": a keyframe is forced at every boundary";
        }
        total += std::max(d.frames, 0);
    }
    EXPECT_EQ(total, 135);
    EXPECT_FALSE(file_exists(dir + "/seg-00005.mp4"));
    // Dated names only where segments start in real time, a second apart at least.
    const CommandResult dated = run_vfilter({"-i", in, "-o", dir + "/cam-%Y%m%d-%H%M%S.mp4", "--segment", "1"}, 60);
    EXPECT_EQ(dated.exit_code, kUsage) << dated.output;
    EXPECT_NE(dated.output.find("needs a live input"), std::string::npos) << dated.output;
    // The series is protected like a single file.
    const CommandResult again = run_vfilter({"-i", in, "-o", dir + "/seg.mp4", "--segment", "1"}, 60);
    EXPECT_EQ(again.exit_code, 4) << again.output;
    EXPECT_NE(again.output.find("already exists"), std::string::npos) << again.output;
}

// The lines of an HLS playlist that name segments (or the init segment's URI), in order.
static std::vector<std::string> playlist_entries(const std::string& playlist) {
    std::vector<std::string> names;
    std::stringstream ss(read_file(playlist));
    for (std::string line; std::getline(ss, line);) {
        if (line.rfind("#EXT-X-MAP:URI=\"", 0) == 0) names.push_back(line.substr(16, line.size() - 17));
        else if (!line.empty() && line[0] != '#') names.push_back(line);
    }
    return names;
}

static std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// -o out.m3u8 from a file: a playlist of every segment, named out-00001.ts (or .m4s after
// out-init.mp4) beside it, one keyframe-started segment per --hls-time, nothing else left in the
// folder, every frame decodable through the playlist.
TEST_F(Live, HlsFromAFileListsEverySegmentWithCleanNames) {
    const std::string in = clip("in.mp4", "320x240", 4.5);
    for (const std::string kind : {"ts", "fmp4"}) {
        const std::string sub = dir + "/" + kind;
        std::filesystem::create_directories(sub);
        const CommandResult r = run_vfilter({"-i", in, "-f", "sobel", "-o", sub + "/out.m3u8", "--hls-time", "1", "--hls-segments", kind}, 60);
        ASSERT_EQ(r.exit_code, kOk) << r.output;
        const std::string ext = kind == "ts" ? ".ts" : ".m4s";
        std::vector<std::string> expected;
        if (kind == "fmp4") expected.push_back("out-init.mp4");
        for (int i = 1; i <= 5; ++i) expected.push_back("out-0000" + std::to_string(i) + ext);
        EXPECT_EQ(playlist_entries(sub + "/out.m3u8"), expected) << read_file(sub + "/out.m3u8");
        const std::string text = read_file(sub + "/out.m3u8");
        EXPECT_NE(text.find("#EXT-X-PLAYLIST-TYPE:EVENT"), std::string::npos) << text;
        EXPECT_NE(text.find("#EXT-X-ENDLIST"), std::string::npos) << text;
        expected.push_back("out.m3u8");
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(files_in(sub), expected) << "no temporary or oddly named files are left";
        const Decoded whole = decode(sub + "/out.m3u8");
        EXPECT_TRUE(whole.clean) << kind << ": " << whole.errors;
        EXPECT_EQ(whole.frames, 135) << kind;
        if (kind == "ts") {  // each MPEG-TS segment plays alone: 30 frames, a keyframe first
            const Decoded first = decode(sub + "/out-00001.ts");
            EXPECT_TRUE(first.clean) << first.errors;
            EXPECT_EQ(first.frames, 30);
        }
    }
    // Protected as any output; --segment does not apply to it.
    CommandResult again = run_vfilter({"-i", in, "-o", dir + "/ts/out.m3u8"}, 60);
    EXPECT_EQ(again.exit_code, 4) << again.output;
    EXPECT_NE(again.output.find("already exists"), std::string::npos) << again.output;
    again = run_vfilter({"-i", in, "-o", dir + "/seg.m3u8", "--segment", "2"}, 60);
    EXPECT_EQ(again.exit_code, kUsage) << again.output;
    EXPECT_NE(again.output.find("--hls-time"), std::string::npos) << again.output;
}

// A live camera to HLS: the playlist keeps the last --hls-window segments and the older ones are
// deleted from the disk (one kept a little longer for a player still fetching it); a restarted
// recorder appends to the playlist and numbers on, overwriting nothing.
TEST_F(Live, HlsOfALiveCameraRollsItsWindowAndGoesOnAfterARestart) {
    NEED_RTSP_CAMERA();
    RtspCamera cam(dir, free_port());
    ASSERT_TRUE(cam.ready()) << cam.log();
    const std::string playlist = dir + "/cam.m3u8";
    auto number_of = [](const std::string& name) { return std::stoi(name.substr(4, 5)); };  // cam-00012.ts
    int last_before = 0;
    for (int run = 0; run < 2; ++run) {
        auto v = vfilter({"-i", cam.url(), "-f", "sobel", "-o", playlist, "--hls-time", "1", "--hls-window", "3"},
                         "hls" + std::to_string(run) + ".log");
        ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
        const auto deadline = std::chrono::steady_clock::now() + 40s;
        while (playlist_entries(playlist).empty() || number_of(playlist_entries(playlist).back()) < last_before + 6) {
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "six segments in 40 s: " << v->log();
            std::this_thread::sleep_for(200ms);
        }
        v->signal(SIGINT);
        ASSERT_EQ(v->wait(30), kOk) << v->log();
        const std::vector<std::string> listed = playlist_entries(playlist);
        ASSERT_FALSE(listed.empty());
        EXPECT_LE(listed.size(), 3u) << read_file(playlist);
        EXPECT_NE(read_file(playlist).find("#EXT-X-PROGRAM-DATE-TIME"), std::string::npos);
        int segments_on_disk = 0;
        for (const std::string& f : files_in(dir))
            if (f.rfind("cam-", 0) == 0) {
                ++segments_on_disk;
                EXPECT_GE(number_of(f), number_of(listed.front()) - 1) << f << " should have been deleted";
            }
        EXPECT_LE(segments_on_disk, 4) << "the window (3) and one segment kept for players still fetching it";
        for (const std::string& f : listed) {
            const Decoded d = decode(dir + "/" + f);
            EXPECT_TRUE(d.clean) << f << ": " << d.errors;
            EXPECT_GT(d.frames, 0) << f;
        }
        if (run == 1) {
            EXPECT_GT(number_of(listed.front()), last_before) << "numbered on after the restart: " << read_file(playlist);
        }
        last_before = number_of(listed.back());
    }
}
