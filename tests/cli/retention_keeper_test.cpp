// The free-space floor over several streams' recordings on one disk (app/run/retention_keeper.*),
// on real files in a temporary folder: the disk's oldest finished files go first whichever stream
// wrote them, a bounded number a look, and the file each stream is writing stays.
#include "app/run/retention_keeper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>

namespace vf {
namespace {

namespace fs = std::filesystem;

std::string stream_file(int stream, int number) {
    char name[32];
    std::snprintf(name, sizeof name, "s%d-%05d.mp4", stream, number);
    return name;
}

// Three streams' files with their ages interleaved (file i of the disk is the i-th oldest and
// belongs to stream i % 3), made in shuffled order, under a floor of the whole disk (never met):
// after every look, the finished files left are the newest of the disk's, and the looks go on
// until only the three files being written are left.
TEST(RetentionKeeperFloor, DeletesTheDisksOldestFirstAcrossStreamsABatchALook) {
    char name[] = "/tmp/vfilter-floor-XXXXXX";
    const std::string dir = mkdtemp(name);
    const int streams = 3, files = 2400;
    std::vector<int> order(files);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(20261130));
    const auto now = fs::file_time_type::clock::now();
    for (int i : order) {
        const std::string path = dir + "/" + stream_file(i % streams, i / streams);
        std::ofstream(path) << "x";
        fs::last_write_time(path, now - std::chrono::seconds(files - i));
    }
    std::vector<std::string> finished;  // the disk's finished files, oldest first
    for (int i = 0; i < files - streams; ++i) finished.push_back(stream_file(i % streams, i / streams));

    RetentionKeeper keeper(FreeSpaceFloor{1.0, 0}, std::chrono::hours(1));  // its own thread never looks
    for (int s = 0; s < streams; ++s)
        keeper.add(std::make_shared<RecordingRetention>("s" + std::to_string(s), dir + "/s" + std::to_string(s) + "-%05d.mp4", RetentionLimits{}));
    int looks = 0;
    bool backlog = true;
    for (; backlog && looks < 20; ++looks) {
        backlog = keeper.look();
        std::set<std::string> left;
        for (const auto& e : fs::directory_iterator(dir)) left.insert(e.path().filename().string());
        for (int s = 0; s < streams; ++s) EXPECT_EQ(left.erase(stream_file(s, files / streams - 1)), 1u) << "stream " << s << "'s newest stays";
        ASSERT_LE(left.size(), finished.size());
        const std::set<std::string> newest(finished.end() - static_cast<long>(left.size()), finished.end());
        EXPECT_EQ(left, newest) << "look " << looks << ": what is left is the newest of the disk";
        EXPECT_GE(finished.size() - left.size(), std::min<size_t>(finished.size(), 330u * (looks + 1))) << "at least a batch a look";
    }
    EXPECT_FALSE(backlog);
    EXPECT_GE(looks, 3) << "at most 1000 a look";
    EXPECT_LE(looks, 10);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace vf
