// ffmpeg's -ss, -t, -to, -r and -s through `vfilter ffmpeg`: the same frames as the system ffmpeg,
// at the same times, for the input's -ss/-t/-to (before -i: a seek, then the frames before the
// point decoded and dropped) and the output's (after -i), on an H.264 clip whose key frames are
// apart, so a seek lands before the point asked for; -r's frames dropped and repeated as ffmpeg's
// video sync does for the container; -s's frames scaled to the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/ffmpeg_output.hpp"
#include "support/run_command.hpp"

namespace vf::ffmpeg_options_test {
namespace {

using namespace test;

constexpr int kUsage = 2;

// A frame of a framemd5 file: its time in seconds (pts times the file's #tb) and its checksum.
// Times are compared in seconds: the time base an output is written in is the muxer's choice.
struct FrameSeen {
    double t = 0;
    std::string md5;
    bool operator==(const FrameSeen& o) const { return std::fabs(t - o.t) < 1e-6 && md5 == o.md5; }
};

std::ostream& operator<<(std::ostream& os, const FrameSeen& f) { return os << f.t << " s " << f.md5; }

std::vector<FrameSeen> frames_of(const std::string& path) {
    std::vector<FrameSeen> frames;
    std::istringstream in(read_file(path));
    int num = 0, den = 1;
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("#tb 0:", 0) == 0) std::sscanf(l.c_str(), "#tb 0: %d/%d", &num, &den);
        if (l.empty() || l[0] == '#') continue;
        long long stream = 0, dts = 0, pts = 0;
        std::sscanf(l.c_str(), "%lld, %lld, %lld", &stream, &dts, &pts);
        frames.push_back({static_cast<double>(pts) * num / den, l.substr(l.rfind(',') + 2)});
    }
    return frames;
}

class FfmpegOptions : public ::testing::Test {
protected:
    void SetUp() override {
        if (ffmpeg_command_missing()) GTEST_SKIP() << "the ffmpeg command is not installed";
        dir = temp_dir();
        clip = dir + "/in.mp4";
        // 30 frames at 25 fps, a key frame every 8: a seek to 0.5 s lands on frame 8 (0.32 s).
        const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=96x64:r=25",
                                                "-frames:v", "30", "-c:v", "libx264", "-g", "8", "-keyint_min", "8",
                                                "-sc_threshold", "0", "-bf", "0", clip});
        ASSERT_EQ(made.exit_code, 0) << made.output;
    }

    // ffmpeg's line `before` -i clip `after` OUTPUT run by ffmpeg (into ffmpeg.EXT) and by vfilter
    // ffmpeg (into vfilter.EXT).
    void run_both(const std::vector<std::string>& before, const std::vector<std::string>& after, const std::string& ext) {
        std::vector<std::string> line = {"-v", "error", "-nostdin", "-y"};
        line.insert(line.end(), before.begin(), before.end());
        line.push_back("-i");
        line.push_back(clip);
        line.insert(line.end(), after.begin(), after.end());
        std::vector<std::string> ff = {"ffmpeg"}, vf = {VFILTER_BIN, "ffmpeg"};
        ff.insert(ff.end(), line.begin(), line.end());
        vf.insert(vf.end(), line.begin(), line.end());
        ff.push_back(dir + "/ffmpeg." + ext);
        vf.push_back(dir + "/vfilter." + ext);
        const CommandResult ran_ff = run_command(ff);
        ASSERT_EQ(ran_ff.exit_code, 0) << ran_ff.output;
        const CommandResult ran_vf = run_command(vf);
        ASSERT_EQ(ran_vf.exit_code, 0) << ran_vf.output;
    }

    // `before` -i clip `after` (-vf avgblur=1 unless `after` has a -vf) -f framemd5, by ffmpeg and
    // by vfilter ffmpeg: as many frames as `frames`, the same ones (checksums), at the same times
    // unless `times` is false.
    void expect_same_frames(const std::vector<std::string>& before, std::vector<std::string> after, size_t frames,
                            bool times = true) {
        if (std::find(after.begin(), after.end(), "-vf") == after.end()) after.insert(after.end(), {"-vf", "avgblur=1"});
        after.insert(after.end(), {"-an", "-bitexact", "-f", "framemd5"});
        ASSERT_NO_FATAL_FAILURE(run_both(before, after, "md5"));
        std::vector<FrameSeen> expected = frames_of(dir + "/ffmpeg.md5"), got = frames_of(dir + "/vfilter.md5");
        ASSERT_EQ(expected.size(), frames) << read_file(dir + "/ffmpeg.md5");
        if (!times)
            for (auto* list : {&expected, &got})
                for (FrameSeen& f : *list) f.t = 0;
        EXPECT_EQ(got, expected) << read_file(dir + "/vfilter.md5");
    }

    std::string dir, clip;
};

TEST_F(FfmpegOptions, InputSeekAndOutputDuration) {
    expect_same_frames({"-ss", "0.52"}, {"-t", "0.4"}, 10);
    // Between two frames: the next one starts the output. Its time is ffmpeg's muxing's (which
    // puts it on the output's frame grid), not this cut's.
    expect_same_frames({"-ss", "0.5"}, {}, 17, false);
}

TEST_F(FfmpegOptions, OutputSeekDecodesAndDrops) { expect_same_frames({}, {"-ss", "0.2", "-t", "0.2"}, 5); }

TEST_F(FfmpegOptions, EndTimes) {
    expect_same_frames({}, {"-to", "0.6"}, 15);
    expect_same_frames({}, {"-ss", "0.2", "-to", "0.6"}, 10);
    // After an input -ss the output's clock starts at 0: -to counts from there, as in ffmpeg.
    expect_same_frames({"-ss", "0.2"}, {"-to", "0.6"}, 15);
    expect_same_frames({"-t", "0.36"}, {}, 9);
    expect_same_frames({"-ss", "00:00:00.4", "-to", "0.8"}, {}, 10);
}

// enable='...t...' sees ffmpeg's t: from the input's -ss, and across an output -ss (ffmpeg's
// filters run before the output's cut).
TEST_F(FfmpegOptions, EnableSeesFfmpegsTimeAcrossACut) {
    expect_same_frames({"-ss", "0.2"}, {"-vf", "avgblur=2:enable='between(t,0.1,0.3)'", "-t", "0.8"}, 20);
    expect_same_frames({}, {"-ss", "0.2", "-vf", "avgblur=2:enable='between(t,0.3,0.5)'", "-t", "0.8"}, 20);
}

// -r on a muxer of variable rates (framemd5: ffmpeg's vfr) drops frames that fall on an output
// frame already taken and never repeats; -frames:v counts the frames written.
TEST_F(FfmpegOptions, RateOnAVariableRateMuxer) {
    expect_same_frames({}, {"-r", "10"}, 13);
    expect_same_frames({}, {"-r", "50"}, 30);
    expect_same_frames({}, {"-r", "30000/1001", "-frames:v", "7"}, 7);
    expect_same_frames({"-ss", "0.2"}, {"-r", "7", "-t", "0.8"}, 6);
}

// -r on a muxer of constant rates (rawvideo: ffmpeg's vscfr from this one-stream input, cfr from
// one with audio) repeats frames to fill the rate and drops them to keep it: the same bytes, frame
// for frame.
TEST_F(FfmpegOptions, RateOnAConstantRateMuxerRepeatsAndDrops) {
    const std::string video_only = clip, with_audio = dir + "/av.mp4";
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=96x64:r=25", "-f", "lavfi",
                                            "-i", "sine", "-frames:v", "30", "-t", "1.2", "-c:v", "libx264", "-g", "8", "-c:a", "aac",
                                            with_audio});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    for (const std::string& input : {video_only, with_audio}) {
        clip = input;
        for (const char* rate : {"60", "10", "24000/1001"}) {
            ASSERT_NO_FATAL_FAILURE(run_both({}, {"-vf", "avgblur=1", "-r", rate, "-an", "-f", "rawvideo"}, "yuv"));
            const std::string expected = read_file(dir + "/ffmpeg.yuv"), got = read_file(dir + "/vfilter.yuv");
            EXPECT_EQ(got.size() / (96 * 64 * 3 / 2), expected.size() / (96 * 64 * 3 / 2)) << "frames at -r " << rate << ", " << input;
            EXPECT_TRUE(got == expected) << "-r " << rate << ", " << input;
        }
    }
}

// The frames' times in an MP4 (ffmpeg's cfr) as ffprobe reads them: -r's repeats and drops
// placed where ffmpeg places them.
TEST_F(FfmpegOptions, RateInAnMp4HasFfmpegsFrameTimes) {
    for (const char* rate : {"50", "10"}) {
        ASSERT_NO_FATAL_FAILURE(run_both({}, {"-vf", "avgblur=1", "-r", rate, "-c:v", "libx264", "-an"}, "mp4"));
        std::string times[2];
        for (int i = 0; i < 2; ++i) {
            const CommandResult probe = run_command({"ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                                     "-of", "csv=p=0", dir + (i == 0 ? "/ffmpeg.mp4" : "/vfilter.mp4")});
            ASSERT_EQ(probe.exit_code, 0) << probe.output;
            times[i] = probe.output;
        }
        EXPECT_GT(times[0].size(), 40u) << times[0];
        EXPECT_EQ(times[1], times[0]) << "-r " << rate;
    }
}

// -s scales after the filters with ffmpeg's scale filter's libswscale setup: the same bytes, with
// ffmpeg's default (bicubic) and with -sws_flags.
TEST_F(FfmpegOptions, SizeScalesAsFfmpegDoes) {
    expect_same_frames({}, {"-vf", "null", "-s", "64x40"}, 30);
    expect_same_frames({}, {"-s", "57x33", "-sws_flags", "lanczos+accurate_rnd"}, 30);
    expect_same_frames({"-ss", "0.4"}, {"-vf", "avgblur=2", "-s", "160x90", "-r", "12"}, 11);
}

// vfilter's own grammar has none of these: each points to the ffmpeg line, nothing is written.
TEST_F(FfmpegOptions, VfiltersOwnGrammarPointsToTheFfmpegLine) {
    for (const char* option : {"-ss", "-t", "-to", "-r", "-s"}) {
        const CommandResult r = run_vfilter({"-i", clip, option, "1", "-o", dir + "/out.mkv"});
        EXPECT_EQ(r.exit_code, kUsage) << r.output;
        EXPECT_NE(r.output.find(std::string("vfilter ffmpeg -i IN ") + option), std::string::npos) << r.output;
        EXPECT_FALSE(file_exists(dir + "/out.mkv"));
    }
}

TEST_F(FfmpegOptions, WhatItCannotTakeIsRefused) {
    for (const auto& [args, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"-i", clip, "-ss", "soon", dir + "/out.mkv"}, "-ss soon"},
             {{"-i", clip, "-t", "-1", dir + "/out.mkv"}, "-t -1"},
             {{"-i", clip, "-ss", "2", "-to", "1", dir + "/out.mkv"}, "-to 1"},
             {{"-sseof", "-1", "-i", clip, dir + "/out.mkv"}, "-sseof"},
             {{"-r", "10", "-i", clip, dir + "/out.mkv"}, "-r 10 before -i"},
             {{"-i", clip, "-r", "fast", dir + "/out.mkv"}, "-r fast"},
             {{"-i", clip, "-s", "big", dir + "/out.mkv"}, "-s big"},
             {{"-i", clip, "-s", "64x40", "-sws_flags", "smooth", dir + "/out.mkv"}, "-sws_flags smooth"}}) {
        std::vector<std::string> argv = {VFILTER_BIN, "ffmpeg"};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = run_command(argv);
        EXPECT_EQ(r.exit_code, kUsage) << r.output;
        EXPECT_NE(r.output.find(named), std::string::npos) << "expected '" << named << "' in:\n" << r.output;
        EXPECT_EQ(lines_containing(r.output, "error"), 1) << r.output;
        EXPECT_FALSE(file_exists(dir + "/out.mkv"));
    }
}

}  // namespace
}  // namespace vf::ffmpeg_options_test
