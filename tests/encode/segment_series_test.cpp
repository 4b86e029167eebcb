// The files of a --segment series on disk and what retention does with them, on real files in a
// temporary folder (their ages set with last_write_time).
#include "encode/segment_series.hpp"
#include "encode/recording_retention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace vf {
namespace {

namespace fs = std::filesystem;

class SegmentFiles : public ::testing::Test {
protected:
    void SetUp() override {
        char name[] = "/tmp/vfilter-segments-XXXXXX";
        dir = mkdtemp(name);
    }
    void TearDown() override { fs::remove_all(dir); }
    // A file of `bytes` last written `age_s` ago.
    void write(const std::string& name, int bytes, double age_s) {
        write(name, bytes, age_s, fs::file_time_type::clock::now());
    }
    // Ages counted from one instant: files written over seconds (a loaded machine) keep their order.
    void write(const std::string& name, int bytes, double age_s, fs::file_time_type from) {
        std::ofstream(dir + "/" + name) << std::string(bytes, 'x');
        fs::last_write_time(dir + "/" + name,
                            from - std::chrono::duration_cast<fs::file_time_type::duration>(std::chrono::duration<double>(age_s)));
    }
    std::vector<std::string> names(const SegmentSeries& s) const {
        std::vector<std::string> out;
        for (const SegmentFile& f : s.files()) out.push_back(fs::path(f.path).filename().string());
        return out;
    }
    std::string dir;
};

TEST_F(SegmentFiles, NumberedSeriesFindsItsOwnFilesOldestFirst) {
    write("rec-003.mp4", 10, 30);
    write("rec-001.mp4", 10, 50);
    write("rec-010.mp4", 10, 10);
    write("rec-002.mp4", 10, 40);
    for (const char* other : {"rec-abc.mp4", "rec-004.mkv", "rec-005.mp4.partial", "xrec-006.mp4", "rec-.mp4", "other.mp4"})
        write(other, 10, 100);
    fs::create_directory(dir + "/rec-007.mp4");  // not a file
    const SegmentSeries s(dir + "/rec-%03d.mp4");
    EXPECT_EQ(names(s), (std::vector<std::string>{"rec-001.mp4", "rec-002.mp4", "rec-003.mp4", "rec-010.mp4"}));
    EXPECT_EQ(s.next_number(), 11);
    EXPECT_EQ(SegmentSeries(dir + "/none-%05d.mp4").next_number(), 0);
    EXPECT_TRUE(SegmentSeries(dir + "/none-%05d.mp4").files().empty());
}

TEST_F(SegmentFiles, DatedSeriesMatchesItsFields) {
    write("cam-20261126-081500.mp4", 10, 20);
    write("cam-20261126-081000.mp4", 10, 30);
    write("cam-2026.mp4", 10, 30);  // the pattern's dashes are missing
    write("cam2-20261126-081000.mp4", 10, 30);
    write("cam-20261126-081000.mkv", 10, 30);
    const SegmentSeries s(dir + "/cam-%Y%m%d-%H%M%S.mp4");
    const auto n = names(s);
    EXPECT_EQ(n.size(), 2u);
    EXPECT_EQ(n.back(), "cam-20261126-081500.mp4") << "the newest last";
    EXPECT_EQ(s.next_number(), 0) << "dated names have no number";
}

TEST_F(SegmentFiles, LiteralCharactersOfThePatternAreNotExpressions) {
    write("a.b+c-001.mp4", 10, 10);
    write("aXb+c-001.mp4", 10, 10);
    write("a.bbc-001.mp4", 10, 10);
    write("50%-001.mp4", 10, 10);
    EXPECT_EQ(names(SegmentSeries(dir + "/a.b+c-%03d.mp4")), std::vector<std::string>{"a.b+c-001.mp4"});
    EXPECT_EQ(names(SegmentSeries(dir + "/50%%-%03d.mp4")), std::vector<std::string>{"50%-001.mp4"});
}

TEST_F(SegmentFiles, RetentionDeletesTheOldestBeyondTheSizeButNeverTheNewest) {
    for (int i = 0; i < 6; ++i) write("rec-00" + std::to_string(i) + ".mp4", 100, 60 - i * 10);
    RecordingRetention r("cam", dir + "/rec-%03d.mp4", RetentionLimits{0, 250});
    r.enforce();
    // Finished: 000..004 (500 bytes); 005 is being written. At most 250 bytes: 003 and 004 stay.
    EXPECT_EQ(names(SegmentSeries(dir + "/rec-%03d.mp4")),
              (std::vector<std::string>{"rec-003.mp4", "rec-004.mp4", "rec-005.mp4"}));
    const RetentionCounts c = r.counts();
    EXPECT_EQ(c.deleted_files, 3);
    EXPECT_EQ(c.deleted_bytes, 300);
    EXPECT_EQ(c.kept_files, 2);
    EXPECT_EQ(c.kept_bytes, 200);
    RecordingRetention tiny("cam", dir + "/rec-%03d.mp4", RetentionLimits{0, 1});
    tiny.enforce();
    EXPECT_EQ(names(SegmentSeries(dir + "/rec-%03d.mp4")), std::vector<std::string>{"rec-005.mp4"}) << "the file being written stays";
    tiny.enforce();
    EXPECT_EQ(names(SegmentSeries(dir + "/rec-%03d.mp4")), std::vector<std::string>{"rec-005.mp4"});
}

TEST_F(SegmentFiles, RetentionDeletesWhatIsOlderThanItsAge) {
    write("cam-2021.mp4", 10, 7200);
    write("cam-2022.mp4", 10, 3000);
    write("cam-2023.mp4", 10, 100);
    write("cam-2024.mp4", 10, 5000);  // named after 2023, written before it: age is by last write
    write("cam-2025.mp4", 10, 1);
    RecordingRetention r("", dir + "/cam-%Y.mp4", RetentionLimits{3600, 0});
    r.enforce();
    EXPECT_EQ(names(SegmentSeries(dir + "/cam-%Y.mp4")), (std::vector<std::string>{"cam-2022.mp4", "cam-2023.mp4", "cam-2025.mp4"}));
    EXPECT_EQ(r.counts().deleted_files, 2);
    EXPECT_EQ(r.counts().kept_files, 2);
    const std::vector<SegmentFile> oldest = r.oldest_finished(1);
    ASSERT_EQ(oldest.size(), 1u);
    EXPECT_EQ(fs::path(oldest[0].path).filename(), "cam-2022.mp4");
    EXPECT_EQ(r.oldest_finished(5).size(), 2u) << "the finished files: not the newest, being written";
    EXPECT_TRUE(r.remove(oldest[0], "the floor"));
    EXPECT_FALSE(r.remove(oldest[0], "the floor")) << "already gone";
    EXPECT_EQ(r.counts().deleted_files, 3);
    EXPECT_EQ(r.counts().kept_files, 1);
}

// A stream's retention takes only what its own pattern writes: each strftime field matches what it
// writes (four digits for %Y), so "cam" never deletes "cam-2"'s recordings, nor a folder's other files.
TEST_F(SegmentFiles, RetentionNeverTakesAnotherPatternsFiles) {
    write("cam-20261128-101010.mp4", 10, 7200);
    write("cam-2-20261128-101010.mp4", 10, 7200);  // another stream's, older than the age
    write("cam-20261128-101011.mp4", 10, 1);
    write("notes.txt", 10, 7200);
    write("2026", 10, 7200);
    RecordingRetention r("cam", dir + "/cam-%Y%m%d-%H%M%S.mp4", RetentionLimits{60, 0});
    r.enforce();
    EXPECT_EQ(names(SegmentSeries(dir + "/cam-%Y%m%d-%H%M%S.mp4")), std::vector<std::string>{"cam-20261128-101011.mp4"});
    EXPECT_TRUE(fs::exists(dir + "/cam-2-20261128-101010.mp4")) << "another stream's recording";
    EXPECT_TRUE(fs::exists(dir + "/notes.txt"));
    RecordingRetention years("y", dir + "/%Y", RetentionLimits{60, 0});
    years.enforce();
    EXPECT_TRUE(fs::exists(dir + "/notes.txt")) << "a pattern of %Y alone takes four-digit names only";
    EXPECT_TRUE(fs::exists(dir + "/cam-2-20261128-101010.mp4"));
    EXPECT_TRUE(fs::exists(dir + "/2026")) << "the newest of its series stays";
}

// Clips around events count with the segments under one retention: every clip is finished (one
// being written is still .partial), the oldest file of either goes first, and nothing else in the
// clips' folder is taken.
TEST_F(SegmentFiles, RetentionCountsAndDeletesClipsWithTheSegments) {
    fs::create_directories(dir + "/clips/cam");
    write("rec-000.mp4", 100, 50);
    write("clips/cam/20261129T134500Z-dark.mp4", 100, 60);
    write("clips/cam/20261129T134600Z-covered-2.mkv", 100, 40);
    write("rec-001.mp4", 100, 30);
    write("clips/cam/20261129T134700Z-motion.mp4", 100, 20);
    write("clips/cam/20261129T134800Z-dark.mp4.partial", 100, 70);  // being written
    write("clips/cam/notes.mp4", 100, 70);
    write("rec-002.mp4", 100, 1);  // being written
    const SegmentSeries clips = SegmentSeries::clips(dir + "/clips/cam");
    EXPECT_EQ(names(clips), (std::vector<std::string>{"20261129T134500Z-dark.mp4", "20261129T134600Z-covered-2.mkv",
                                                      "20261129T134700Z-motion.mp4"}));
    RecordingRetention r("cam", SegmentSeries(dir + "/rec-%03d.mp4"), clips, RetentionLimits{0, 250});
    r.enforce();
    // Finished: the clip of 60 s, rec-000, the clip of 40 s, rec-001, the clip of 20 s (500 bytes).
    EXPECT_FALSE(fs::exists(dir + "/clips/cam/20261129T134500Z-dark.mp4"));
    EXPECT_FALSE(fs::exists(dir + "/rec-000.mp4"));
    EXPECT_FALSE(fs::exists(dir + "/clips/cam/20261129T134600Z-covered-2.mkv"));
    EXPECT_TRUE(fs::exists(dir + "/rec-001.mp4"));
    EXPECT_TRUE(fs::exists(dir + "/clips/cam/20261129T134700Z-motion.mp4"));
    EXPECT_TRUE(fs::exists(dir + "/clips/cam/20261129T134800Z-dark.mp4.partial")) << "a clip being written";
    EXPECT_TRUE(fs::exists(dir + "/clips/cam/notes.mp4")) << "not a clip's name";
    EXPECT_EQ(r.counts().deleted_files, 3);
    EXPECT_EQ(r.counts().kept_files, 2);
    RecordingRetention only_clips("cam", std::nullopt, clips, RetentionLimits{10, 0});
    EXPECT_EQ(only_clips.folder(), dir + "/clips/cam");
    only_clips.enforce();
    EXPECT_TRUE(names(clips).empty()) << "older than 10 s";
    EXPECT_TRUE(fs::exists(dir + "/rec-001.mp4")) << "a retention of clips alone leaves the segments";
}

// The oldest or newest few of a folder, held in bounded memory, are the first or last few of the
// whole sorted list: random ages (many equal, so the name decides), every limit from none to more
// than there are.
TEST(FileSelection, KeepsWhatTheWholeSortedListStartsAndEndsWith) {
    std::mt19937 random(20261130);
    for (int round = 0; round < 20; ++round) {
        const int count = std::uniform_int_distribution<int>(0, 300)(random);
        std::vector<SegmentFile> files;
        for (int i = 0; i < count; ++i) {
            SegmentFile f;
            f.path = "rec-" + std::to_string(std::uniform_int_distribution<int>(0, 99999)(random)) + "-" + std::to_string(i) + ".mp4";
            f.bytes = i;
            f.written = fs::file_time_type(std::chrono::seconds(std::uniform_int_distribution<int>(0, count / 4 + 1)(random)));
            files.push_back(f);
        }
        std::vector<SegmentFile> sorted = files;
        std::sort(sorted.begin(), sorted.end(), written_before);
        for (size_t limit : {size_t{0}, size_t{1}, size_t{7}, size_t(count / 2), size_t(count), size_t(count + 5)}) {
            FileSelection oldest(limit, FileSelection::Keep::Oldest), newest(limit, FileSelection::Keep::Newest);
            for (const SegmentFile& f : files) {
                oldest.offer(f);
                newest.offer(f);
            }
            const size_t n = std::min(limit, sorted.size());
            const auto paths = [](const std::vector<SegmentFile>& v) {
                std::vector<std::string> out;
                for (const SegmentFile& f : v) out.push_back(f.path);
                return out;
            };
            EXPECT_EQ(paths(oldest.take()), paths({sorted.begin(), sorted.begin() + static_cast<long>(n)})) << count << " files, limit " << limit;
            EXPECT_EQ(paths(newest.take()), paths({sorted.end() - static_cast<long>(n), sorted.end()})) << count << " files, limit " << limit;
        }
    }
}

// A folder of more finished files than one look deletes (a limit lowered after months): each look
// deletes the oldest it may, the next goes on, and what stays is the newest within the limit.
TEST_F(SegmentFiles, RetentionWorksThroughAFolderLargerThanOneLook) {
    const int count = 2600;
    std::vector<int> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));  // the folder's order is not the age's
    char name[32];
    const fs::file_time_type now = fs::file_time_type::clock::now();
    for (int i : order) {
        std::snprintf(name, sizeof name, "rec-%05d.mp4", i);
        write(name, 10, count - i, now);
    }
    RecordingRetention r("cam", dir + "/rec-%05d.mp4", RetentionLimits{0, 1000});
    std::vector<int64_t> kept;
    std::vector<bool> more;
    for (int look = 0; look < 4; ++look) {
        more.push_back(r.enforce());
        kept.push_back(r.counts().kept_files);
    }
    EXPECT_EQ(kept, (std::vector<int64_t>{1599, 599, 100, 100})) << "1000 a look, then the 100 newest finished files of 10 bytes";
    EXPECT_EQ(more, (std::vector<bool>{true, true, false, false})) << "a backlog is said while a look stops at its 1000";
    EXPECT_EQ(r.counts().deleted_files, count - 101);
    EXPECT_EQ(r.counts().kept_bytes, 1000);
    const std::vector<std::string> left = names(SegmentSeries(dir + "/rec-%05d.mp4"));
    ASSERT_EQ(left.size(), 101u);
    EXPECT_EQ(left.front(), "rec-02499.mp4");
    EXPECT_EQ(left.back(), "rec-02599.mp4") << "the file being written stays";
}

// Files written in the same instant: the name decides their order, so the one held back as being
// written is the last by name, and the oldest go by name too.
TEST_F(SegmentFiles, RetentionOrdersFilesOfOneInstantByName) {
    const auto when = fs::file_time_type::clock::now() - std::chrono::seconds(60);
    for (const char* n : {"rec-004.mp4", "rec-001.mp4", "rec-003.mp4", "rec-002.mp4"}) {
        std::ofstream(dir + "/" + n) << std::string(100, 'x');
        fs::last_write_time(dir + "/" + n, when);
    }
    RecordingRetention r("cam", dir + "/rec-%03d.mp4", RetentionLimits{0, 150});
    EXPECT_FALSE(r.enforce());
    EXPECT_EQ(names(SegmentSeries(dir + "/rec-%03d.mp4")), (std::vector<std::string>{"rec-003.mp4", "rec-004.mp4"}));
    EXPECT_EQ(r.counts().kept_files, 1);
    EXPECT_EQ(r.counts().kept_bytes, 100);
}

}  // namespace
}  // namespace vf
