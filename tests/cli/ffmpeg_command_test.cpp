// `vfilter ffmpeg ARGS...`: ffmpeg command lines run unchanged. FATE's own lines for boxblur and
// unsharp (as tests/fate-run.sh runs them, -f framecrc to stdout) give the system ffmpeg's
// checksums; a typical user's line writes its output; what cannot run as ffmpeg would is refused
// in one line naming the option, exit 2, nothing written.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "support/clip_writer.hpp"
#include "support/ffmpeg_output.hpp"
#include "support/run_command.hpp"

namespace vf::ffmpeg_command_test {
namespace {

using namespace test;

constexpr int kUsage = 2, kOutput = 4;

// vfilter ffmpeg ARGS, as a user types it.
CommandResult run_ffmpeg_line(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {VFILTER_BIN, "ffmpeg"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

// Runs argv with its standard output into `stdout_file` (stderr kept apart from it, as a shell's
// redirection does: ffmpeg and vfilter log there).
CommandResult run_to_file(const std::vector<std::string>& argv, const std::string& stdout_file) {
    std::string line;
    for (const std::string& a : argv) line += "'" + a + "' ";
    return run_command({"sh", "-c", line + "> '" + stdout_file + "'"});
}

// The size and checksum of a frame line: what the samples are, whatever the timestamps.
std::string size_and_checksum(const std::string& line) {
    const size_t last = line.rfind(',');
    const size_t before = last == std::string::npos ? std::string::npos : line.rfind(',', last - 1);
    return before == std::string::npos ? line : line.substr(before + 1);
}

// A lossless clip of testsrc2 under heavy noise (a photograph's texture) at an odd size.
void make_clip(const std::string& path, const std::string& pix_fmt) {
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=172x98:r=25", "-vf",
                                            "crop=171:97:0:0:exact=1,noise=alls=60:allf=t+u,format=" + pix_fmt, "-frames:v", "4", "-c:v", "ffv1", path});
    ASSERT_EQ(made.exit_code, 0) << made.output;
}

// FATE's line for a filter, word for word as FFmpeg 5.1's tests/fate-run.sh builds it from
// tests/fate/filter-video.mak's "framecrc -c:v pgmyuv -i $(SRC) -vf FILTER": its ffmpeg() puts
// -nostdin -nostats -noauto_conversion_filters -cpuflags all first and -hwaccel none -threads 1
// -thread_type frame+slice before -i, its framecrc() -bitexact -f framecrc - last. The input here
// is FFV1, so -c:v ffv1 stands where FATE forces its pgmyuv decoder.
std::vector<std::string> fate_line(const std::string& program, const std::string& input, const std::string& filter) {
    std::vector<std::string> line = {program};
    if (program == VFILTER_BIN) line.push_back("ffmpeg");
    for (const char* w : {"-nostdin", "-nostats", "-noauto_conversion_filters", "-cpuflags", "all", "-c:v", "ffv1", "-hwaccel", "none",
                          "-threads", "1", "-thread_type", "frame+slice", "-i"})
        line.push_back(w);
    line.push_back(input);
    line.push_back("-vf");
    line.push_back(filter);
    for (const char* w : {"-bitexact", "-f", "framecrc", "-"}) line.push_back(w);
    return line;
}

// FATE's line run by the system ffmpeg and by vfilter ffmpeg: the same frames, checksum for
// checksum, and the same file, header and timestamps included (ffmpeg's time base, -bitexact).
void expect_fate_checksums_equal(const std::string& pix_fmt, const std::string& filter) {
    const std::string dir = temp_dir();
    make_clip(dir + "/src.nut", pix_fmt);
    const CommandResult ff = run_to_file(fate_line("ffmpeg", dir + "/src.nut", filter), dir + "/ffmpeg.crc");
    ASSERT_EQ(ff.exit_code, 0) << ff.output;
    const CommandResult vf = run_to_file(fate_line(VFILTER_BIN, dir + "/src.nut", filter), dir + "/vfilter.crc");
    ASSERT_EQ(vf.exit_code, 0) << vf.output;
    const std::vector<std::string> expected = frame_lines(dir + "/ffmpeg.crc"), got = frame_lines(dir + "/vfilter.crc");
    ASSERT_EQ(expected.size(), 4u) << read_file(dir + "/ffmpeg.crc");
    ASSERT_EQ(got.size(), expected.size()) << read_file(dir + "/vfilter.crc");
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(size_and_checksum(got[i]), size_and_checksum(expected[i])) << filter << " on " << pix_fmt << ", frame " << i;
    EXPECT_EQ(read_file(dir + "/vfilter.crc"), read_file(dir + "/ffmpeg.crc")) << filter << " on " << pix_fmt << ": the whole framecrc";
}

TEST(FfmpegCommand, FateBoxblurLineGivesFfmpegsChecksums) {
    if (ffmpeg_command_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    expect_fate_checksums_equal("yuv420p", "boxblur=2:1");
}

TEST(FfmpegCommand, FateUnsharpLinesGiveFfmpegsChecksums) {
    if (ffmpeg_command_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    expect_fate_checksums_equal("yuv420p", "unsharp=11:11:-1.5:11:11:-1.5");
    expect_fate_checksums_equal("yuv420p10le", "unsharp=11:11:-1.5:11:11:-1.5");
}

class FfmpegLine : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        ClipSpec c;
        c.path = dir + "/in.mp4";
        c.video_codec = "libx264";  // with AAC audio: the kind of file a user has
        c.width = 48;
        c.height = 32;
        c.frames = 5;
        write_clip(c);
        clip = c.path;
    }
    // vfilter ffmpeg ARGS refused: exit 2, one line naming `option`, no output left.
    void expect_refused(const std::vector<std::string>& args, const std::string& option) {
        const CommandResult r = run_ffmpeg_line(args);
        EXPECT_EQ(r.exit_code, kUsage) << r.output;
        EXPECT_NE(r.output.find(option), std::string::npos) << "expected '" << option << "' in:\n" << r.output;
        EXPECT_EQ(lines_containing(r.output, "error"), 1) << r.output;
        EXPECT_FALSE(file_exists(dir + "/out.mp4"));
        EXPECT_FALSE(file_exists(dir + "/out.mp4.partial"));
    }
    std::string dir, clip;
};

// A user's file (H.264 and AAC in MP4, made by ffmpeg) through a user's line: every frame written.
TEST_F(FfmpegLine, TypicalUserLineWritesEveryFrame) {
    if (ffmpeg_command_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
    const std::string input = dir + "/in.mp4";
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=96x64:r=25", "-f", "lavfi",
                                            "-i", "sine", "-frames:v", "10", "-t", "0.4", "-c:v", "libx264", "-c:a", "aac", input});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const CommandResult r = run_ffmpeg_line({"-y", "-i", input, "-vf", "sobel", "-c:v", "libx264", "-crf", "20", "-preset",
                                             "veryfast", dir + "/out.mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(summarize(dir + "/out.mp4").video_pts.size(), 10u);
}

// Started under the name ffmpeg (a link), vfilter reads ffmpeg's grammar without the word.
TEST_F(FfmpegLine, StartedAsFfmpegTakesItsGrammar) {
    const std::string link = dir + "/ffmpeg";
    ASSERT_EQ(symlink(VFILTER_BIN, link.c_str()), 0);
    const CommandResult r = run_command({link, "-hide_banner", "-loglevel", "error", "-i", clip, "-flags", "+bitexact", "-fflags",
                                         "+bitexact", "-sws_flags", "+accurate_rnd+bitexact", "-vf", "[in]boxblur=2:1[out]",
                                         "-frames:v", "3", "-an", dir + "/out.mkv"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(summarize(dir + "/out.mkv").video_pts.size(), 3u);
}

TEST_F(FfmpegLine, WhatItCannotDoIsRefusedNamingTheOption) {
    expect_refused({"-sseof", "-5", "-i", clip, dir + "/out.mp4"}, "-sseof (seeking from the end; use -ss) is not supported yet");
    expect_refused({"-i", clip, "-vf", "split[a][b];[a][b]hstack", dir + "/out.mp4"}, "-vf");
    expect_refused({"-i", clip, "-pix_fmt", "rgb24", dir + "/out.mp4"}, "-pix_fmt rgb24");
    expect_refused({"-i", clip, "-foo", "1", dir + "/out.mp4"}, "-foo");
    expect_refused({"-r", "10", "-i", clip, dir + "/out.mp4"}, "-r 10 before -i");
    expect_refused({"-i", clip, "-c:v", "nosuchcodec", dir + "/out.mp4"}, "-c:v: unknown video codec 'nosuchcodec'");
    expect_refused({"-i", clip, "-vf", "nosuchfilter", dir + "/out.mp4"}, "-vf");
    expect_refused({"-i", clip, dir + "/a.mp4", dir + "/out.mp4"}, "one output only");
}

// -pix_fmt naming the input's own format is taken.
TEST_F(FfmpegLine, PixFmtOfTheInputIsTaken) {
    const CommandResult r = run_ffmpeg_line({"-i", clip, "-vf", "sobel", "-pix_fmt", "yuv420p", "-f", "null", "-"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(FfmpegLine, NeverOverwriteLeavesTheFileUntouched) {
    const std::string out = dir + "/out.mkv";
    std::ofstream(out, std::ios::binary) << "precious bytes";
    const CommandResult r = run_ffmpeg_line({"-n", "-i", clip, "-vf", "sobel", out});
    EXPECT_EQ(r.exit_code, kOutput) << r.output;
    EXPECT_EQ(read_file(out), "precious bytes");
}

TEST_F(FfmpegLine, HelpNamesTheGrammar) {
    CommandResult r = run_ffmpeg_line({"--help"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("-frames:v"), std::string::npos) << r.output;
    r = run_vfilter({"--help"});
    EXPECT_NE(r.output.find("vfilter ffmpeg"), std::string::npos) << r.output;
    // ffmpeg's spelling in vfilter's own grammar points to this command.
    r = run_vfilter({"-i", clip, "-c:v", "libx264", dir + "/out.mp4"});
    EXPECT_EQ(r.exit_code, kUsage) << r.output;
    EXPECT_NE(r.output.find("vfilter ffmpeg"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vf::ffmpeg_command_test
