// OwnedFiles on real files: an output writes again only what it created, never through a link,
// and replaces someone else's regular file only with -y; publishing never replaces a name taken.
#include "encode/owned_files.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "common/error.hpp"
#include "support/child_process.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace owned_files_test {

using test::read_file;

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

void write_fd(const OpenedFile& f, const std::string& text) {
    ASSERT_GE(f.fd, 0) << f.why;
    ASSERT_EQ(::write(f.fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(f.fd);
}

class OwnedFilesTest : public ::testing::Test {
protected:
    void SetUp() override { dir = test::temp_dir(); }
    std::string dir;
};

TEST_F(OwnedFilesTest, WritesAgainOnlyWhatItCreated) {
    OwnedFiles files(false);
    const std::string mine = dir + "/list.m3u8", theirs = dir + "/theirs.ts";
    write_fd(files.open_for_write(mine), "first version, longer");
    write_fd(files.open_for_write(mine), "second");
    EXPECT_EQ(read_file(mine), "second") << "its own file is emptied and written again";
    EXPECT_TRUE(files.owns(mine));

    write_text(theirs, "theirs");
    const OpenedFile refused = files.open_for_write(theirs);
    EXPECT_LT(refused.fd, 0);
    EXPECT_EQ(refused.error, EEXIST);
    EXPECT_NE(refused.why.find("theirs.ts' exists and was not written by vfilter; refusing to overwrite it"), std::string::npos)
        << refused.why;
    EXPECT_EQ(read_file(theirs), "theirs");
    EXPECT_FALSE(files.owns(theirs));
    EXPECT_LT(files.open_for_read(theirs).fd, 0) << "what it did not write is not read back either";
    const OpenedFile own = files.open_for_read(mine);
    EXPECT_GE(own.fd, 0) << own.why;
    ::close(own.fd);
}

// A file put in place of the output's own (renamed over it) is someone else's; so is a file that
// got the inode number of one of the output's files deleted meanwhile (tmpfs hands it out again
// at once), under another name.
TEST_F(OwnedFilesTest, AFileThatReplacedItsOwnIsSomeoneElses) {
    OwnedFiles files(false);
    const std::string path = dir + "/list.m3u8";
    write_fd(files.open_for_write(path), "mine");
    write_text(dir + "/other", "theirs");
    ASSERT_EQ(::rename((dir + "/other").c_str(), path.c_str()), 0);
    EXPECT_LT(files.open_for_write(path).fd, 0);
    EXPECT_EQ(read_file(path), "theirs");
    files.remove_if_owned(path);
    EXPECT_EQ(read_file(path), "theirs") << "removed a file it did not write";

    for (int i = 0; i < 20; ++i) {  // segments written, then deleted by the muxer's window
        const std::string old_segment = dir + "/seg-" + std::to_string(i) + ".ts";
        write_fd(files.open_for_write(old_segment), "segment");
        ASSERT_EQ(::unlink(old_segment.c_str()), 0);
        const std::string planted = dir + "/seg-" + std::to_string(i + 1000) + ".ts";
        write_text(planted, "theirs");
        EXPECT_FALSE(files.owns(planted));
        EXPECT_LT(files.open_for_write(planted).fd, 0);
        EXPECT_EQ(read_file(planted), "theirs");
    }
}

TEST_F(OwnedFilesTest, NeverThroughALinkEvenWithOverwrite) {
    const std::string victim = dir + "/victim", link = dir + "/out.mp4.partial";
    write_text(victim, "precious");
    ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
    for (const bool overwrite : {false, true}) {
        OwnedFiles files(overwrite);
        const OpenedFile f = files.open_for_write(link);
        EXPECT_LT(f.fd, 0);
        EXPECT_NE(f.why.find("is a symbolic link"), std::string::npos) << f.why;
        EXPECT_EQ(read_file(victim), "precious");
    }
    ASSERT_EQ(symlink("/nonexistent/target", (dir + "/dangling").c_str()), 0);
    OwnedFiles files(true);
    EXPECT_LT(files.open_for_write(dir + "/dangling").fd, 0) << "a dangling link is not followed to create its target";
}

TEST_F(OwnedFilesTest, OverwriteReplacesARegularFileWithANewOne) {
    const std::string path = dir + "/out.mkv", other_name = dir + "/hard-link";
    write_text(path, "older output");
    ASSERT_EQ(::link(path.c_str(), other_name.c_str()), 0);
    OwnedFiles files(true);
    write_fd(files.open_for_write(path), "new");
    EXPECT_EQ(read_file(path), "new");
    EXPECT_EQ(read_file(other_name), "older output") << "replaced, not written into: another name of it keeps its bytes";
    ::mkfifo((dir + "/fifo").c_str(), 0600);
    EXPECT_LT(files.open_for_write(dir + "/fifo").fd, 0) << "not a regular file";
}

TEST_F(OwnedFilesTest, PublishingNeverReplacesATakenName) {
    const std::string from = dir + "/out.mp4.partial", to = dir + "/out.mp4";
    write_text(from, "recording");
    write_text(to, "theirs");
    EXPECT_EQ(rename_without_replacing(from, to), EEXIST);
    EXPECT_EQ(move_without_replacing(from, to, false), dir + "/out-2.mp4");
    EXPECT_EQ(read_file(to), "theirs");
    EXPECT_EQ(read_file(dir + "/out-2.mp4"), "recording");

    write_text(from, "second recording");
    EXPECT_EQ(move_without_replacing(from, to, false), dir + "/out-3.mp4");
    write_text(from, "third");
    EXPECT_EQ(move_without_replacing(from, to, true), to) << "-y replaces a regular file";
    EXPECT_EQ(read_file(to), "third");

    const std::string link = dir + "/linked.mp4";
    write_text(dir + "/victim", "precious");
    ASSERT_EQ(symlink((dir + "/victim").c_str(), link.c_str()), 0);
    write_text(from, "fourth");
    EXPECT_EQ(move_without_replacing(from, link, true), dir + "/linked-2.mp4") << "a link is never replaced, even with -y";
    EXPECT_EQ(read_file(dir + "/victim"), "precious");
    EXPECT_THROW(move_without_replacing(dir + "/absent", to, false), Error);
}

}  // namespace owned_files_test
}  // namespace vf
