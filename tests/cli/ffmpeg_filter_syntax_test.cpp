// FFmpeg's filter syntax through `vfilter ffmpeg`: timeline editing (enable=), labelled
// single-input chains with -map, and the options' short names give the system ffmpeg's frames,
// checksum for checksum; a graph vfilter cannot run is refused in one line naming what is wrong,
// exit 2, nothing written.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/ffmpeg_output.hpp"
#include "support/run_command.hpp"

namespace vf::ffmpeg_filter_syntax_test {
namespace {

using namespace test;

constexpr int kUsage = 2;

// The md5 of a frame line.
std::string checksum(const std::string& line) { return line.substr(line.rfind(',') + 1); }

class FfmpegFilterSyntax : public ::testing::Test {
protected:
    void SetUp() override {
        if (ffmpeg_command_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
        dir = temp_dir();
        clip = dir + "/src.nut";
        // testsrc2 under noise (a photograph's texture) at an odd size, lossless, 10 frames at 25 fps.
        const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=172x98:r=25", "-vf",
                                                "crop=171:97:0:0:exact=1,noise=alls=60:allf=t+u,format=yuv420p", "-frames:v", "10",
                                                "-c:v", "ffv1", clip});
        ASSERT_EQ(made.exit_code, 0) << made.output;
    }

    // The frames `filter_args` make, by ffmpeg and by vfilter ffmpeg (-f framemd5 files).
    void expect_same_frames(const std::vector<std::string>& filter_args) {
        std::vector<std::string> line = {"-v", "error", "-nostdin", "-y", "-i", clip};
        line.insert(line.end(), filter_args.begin(), filter_args.end());
        for (const char* w : {"-an", "-bitexact", "-f", "framemd5"}) line.push_back(w);
        std::vector<std::string> ff = {"ffmpeg"}, vf = {VFILTER_BIN, "ffmpeg"};
        ff.insert(ff.end(), line.begin(), line.end());
        vf.insert(vf.end(), line.begin(), line.end());
        ff.push_back(dir + "/ffmpeg.md5");
        vf.push_back(dir + "/vfilter.md5");
        const CommandResult ran_ff = run_command(ff);
        ASSERT_EQ(ran_ff.exit_code, 0) << ran_ff.output;
        const CommandResult ran_vf = run_command(vf);
        ASSERT_EQ(ran_vf.exit_code, 0) << ran_vf.output;
        const std::vector<std::string> expected = frame_lines(dir + "/ffmpeg.md5"), got = frame_lines(dir + "/vfilter.md5");
        ASSERT_EQ(expected.size(), 10u);
        ASSERT_EQ(got.size(), expected.size()) << read_file(dir + "/vfilter.md5");
        for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(checksum(got[i]), checksum(expected[i])) << "frame " << i;
    }

    // vfilter ffmpeg ARGS refused: exit 2, one error line naming `what`, nothing written.
    void expect_refused(const std::vector<std::string>& args, const std::string& what) {
        std::vector<std::string> argv = {VFILTER_BIN, "ffmpeg", "-i", clip};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.push_back(dir + "/out.mkv");
        const CommandResult r = run_command(argv);
        EXPECT_EQ(r.exit_code, kUsage) << r.output;
        EXPECT_NE(r.output.find(what), std::string::npos) << "expected '" << what << "' in:\n" << r.output;
        EXPECT_EQ(lines_containing(r.output, "error"), 1) << r.output;
        EXPECT_FALSE(file_exists(dir + "/out.mkv"));
    }

    std::string dir, clip;
};

// enable= over t, n and pos, on two filters of one chain: each frame is filtered by exactly the
// filters whose expression holds for it, as ffmpeg does.
TEST_F(FfmpegFilterSyntax, EnableChoosesTheFramesAsFfmpegDoes) {
    expect_same_frames({"-vf", "avgblur=3:enable='between(t,0.12,0.25)',boxblur=2:1:enable='lt(n,2)+gte(n,8)'"});
    expect_same_frames({"-vf", "unsharp=lx=5:ly=5:la=1.5:enable='not(mod(n,3))'"});
    expect_same_frames({"-vf", "avgblur=2:enable='between(pos,40000,130000)'"});  // frames 2 to 6 start there
}

// A labelled single-input chain, mapped by its label, and -vf's [in]...[out].
TEST_F(FfmpegFilterSyntax, LabelledChainMappedByItsLabel) {
    expect_same_frames({"-filter_complex", "[0:v]boxblur=lr=2:lp=1:cr=1:cp=1[v]", "-map", "[v]"});
    expect_same_frames({"-vf", "[in]avgblur=sizeX=2:sizeY=1[out]"});
}

// FFmpeg's short names and values by position mean what they mean to ffmpeg.
TEST_F(FfmpegFilterSyntax, ShortNamesAndPositionsAsFfmpegReadsThem) {
    expect_same_frames({"-vf", "unsharp=lx=7:ly=3:la=-0.8:cx=3:cy=3:ca=0.5"});
    expect_same_frames({"-vf", "boxblur=1:2:cr=2:cp=1,avgblur=2:planes=1"});
}

TEST_F(FfmpegFilterSyntax, GraphsItCannotRunAreRefusedNamingWhatToUse) {
    expect_refused({"-filter_complex", "[0:v][0:v]hstack[v]", "-map", "[v]"}, "2 inputs");
    expect_refused({"-vf", "split[a][b]"}, "2 outputs");
    expect_refused({"-vf", "sobel[a];[a]gblur"}, "';' joins several chains");
    expect_refused({"-vf", "sobel,scale=64:48"}, "-s WxH");
    expect_refused({"-vf", "hflip"}, "unknown filter 'hflip'");
    expect_refused({"-vf", "sobel=threads=2"}, "threads=");
    expect_refused({"-vf", "sobel=enable='random(0)'"}, "enable=");
    expect_refused({"-vf", "sobel=enable='between(t,1'"}, "enable=");
    expect_refused({"-filter_complex", "[0:v]sobel[v]", "-map", "[w]"}, "-map [w]");
    expect_refused({"-filter_complex", "[0:v]sobel[v]", "-map", "0:v"}, "-map 0:v");
    expect_refused({"-vf", "sobel", "-map", "1:v"}, "-map 1:v");
}

}  // namespace
}  // namespace vf::ffmpeg_filter_syntax_test
