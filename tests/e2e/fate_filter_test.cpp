// FFmpeg's own test suite (FATE) for the filters vfilter computes as FFmpeg 5.1 does, run as FATE
// runs them. The command lines, the reference outputs and the input frames come from the
// distribution's ffmpeg source package at test time (scripts/fate_sources.sh: the version of the
// installed ffmpeg; the vsynth1 frames made by its tests/videogen.c, compiled with cc), and each
// test's whole output file, header lines included, must equal FATE's reference file, as FATE's
// diff requires. Where a FATE line holds more than vfilter runs, the test says what vfilter runs:
//   fate-filter-boxblur, fate-filter-unsharp: FATE's line word for word (filter-video.mak's CMD
//     through fate-run.sh's ffmpeg() and framecrc()), run by `vfilter ffmpeg`.
//   fate-filter-unsharp-yuv420p10: its -lavfi graph starts with a source (testsrc2), which vfilter
//     does not have: the ffmpeg command makes the graph's frames before unsharp, and vfilter runs
//     the rest of FATE's line (unsharp, -pix_fmt, the bitexact flags, framecrc) on them.
//   fate-filter-refcmp-{psnr,ssim}-{rgb,yuv} (fate-run.sh's refcmp_metadata): the graph has two
//     inputs; vfilter runs only its avgblur=4 step, on testsrc2's frames in the test's pixel
//     format, and the ffmpeg command compares (psnr or ssim, metadata=print) and FATE's awk
//     script checks the numbers against the reference file (within FATE's fuzz, as FATE does).
//     The rgb24 ones need vfilter to write rgb24 input as rgb24 (RGB filtered as RGB).
// Each runs on the CPU (VFILTER_DEVICE=cpu) and again on the GPU where one is present. The
// ffmpeg command runs FATE's full lines too: that it gives the reference shows the inputs right.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/pixdesc.h>
}

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif
#include "support/clip_writer.hpp"
#include "support/run_command.hpp"

namespace vf::fate_filter_test {
namespace {

using namespace test;
using Words = std::vector<std::string>;

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string quoted(const std::string& word) {
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// FFmpeg's tests folder's parent (FATE's TARGET_PATH), made once per build folder.
struct FateTree {
    std::string root, error;
};
const FateTree& fate_tree() {
    static const FateTree tree = [] {
        FateTree t;
        const CommandResult r = run_command({VF_SOURCE_DIR "/scripts/fate_sources.sh", VF_BUILD_DIR "/fate-src"}, 300);
        if (r.exit_code != 0) t.error = r.output;
        else t.root = r.output.substr(0, r.output.find_last_not_of("\n") + 1);
        return t;
    }();
    return tree;
}

// The CMD of `test` in tests/fate/filter-video.mak, split in words, with $(SRC) and $(TARGET_PATH)
// as FATE's make fills them for the vsynth1 filter tests (run from TARGET_PATH).
Words fate_cmd(const std::string& test) {
    std::istringstream mak(read_all(fate_tree().root + "/tests/fate/filter-video.mak"));
    const std::string head = test + ": CMD = ";
    for (std::string line; std::getline(mak, line);) {
        if (line.rfind(head, 0) != 0) continue;
        Words words;
        std::istringstream in(line.substr(head.size()));
        for (std::string w; in >> w;) {
            if (w == "$(SRC)") w = "tests/vsynth1/%02d.pgm";
            if (w.rfind("$(TARGET_PATH)/", 0) == 0) w.erase(0, 15);
            words.push_back(w);
        }
        return words;
    }
    ADD_FAILURE() << "no '" << head << "' in filter-video.mak";
    return {};
}

// fate-run.sh's ffmpeg(): its own options first and the decoder's before each -i (FATE's defaults:
// -cpuflags all, -hwaccel none, -threads 1, -thread_type frame+slice).
Words fate_ffmpeg(const Words& program, const Words& args) {
    Words line = program;
    for (const char* w : {"-nostdin", "-nostats", "-noauto_conversion_filters", "-cpuflags", "all"}) line.push_back(w);
    for (const std::string& a : args) {
        if (a == "-i")
            for (const char* w : {"-hwaccel", "none", "-threads", "1", "-thread_type", "frame+slice"}) line.push_back(w);
        line.push_back(a);
    }
    return line;
}

// fate-run.sh's framecrc(): ffmpeg "$@" -bitexact -f framecrc -
Words fate_framecrc(const Words& program, Words args) {
    for (const char* w : {"-bitexact", "-f", "framecrc", "-"}) args.push_back(w);
    return fate_ffmpeg(program, args);
}

const Words kFfmpeg = {"ffmpeg"}, kVfilter = {VFILTER_BIN, "ffmpeg"};

// Runs `line` (then `pipe_to`, when given, as a shell pipe) in the FATE tree with `env`, its
// standard output into `out` (stderr apart, as FATE keeps it).
CommandResult run_in_tree(const std::string& env, const Words& line, const std::string& out, const std::string& pipe_to = "") {
    std::string cmd = "cd " + quoted(fate_tree().root) + " && " + env + " ";
    for (const std::string& w : line) cmd += quoted(w) + " ";
    if (!pipe_to.empty()) cmd += "2>" + quoted(out + ".log") + " | " + pipe_to;
    return run_command({"sh", "-c", cmd + " > " + quoted(out)});
}

std::string ref_file(const std::string& test) { return fate_tree().root + "/tests/ref/fate/" + test.substr(5); }

bool ffmpeg_missing() { return run_command({"ffmpeg", "-version"}).exit_code != 0; }

// Where vfilter's filters run in these tests: the CPU, and the GPU where one answers.
struct Device {
    std::string name, env;
};
std::vector<Device> devices_here() {
    std::vector<Device> devices = {{"cpu", "VFILTER_DEVICE=cpu"}};
    std::string why = "this build has no CUDA backend";
#ifdef VF_HAVE_CUDA
    if (cuda_device_available(&why)) devices.push_back({"cuda", "VFILTER_DEVICE=cuda"});
#endif
    if (devices.size() == 1) std::printf("FATE's checksums not checked on the GPU: %s\n", why.c_str());
    return devices;
}

class Fate : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fate_tree().error.empty()) FAIL() << "FFmpeg's FATE sources: " << fate_tree().error;
        dir = temp_dir();
    }
    // The ffmpeg command's output for FATE's own line equals the reference (the inputs are FATE's).
    void expect_ffmpeg_gives_reference(const std::string& test, const Words& line, const std::string& pipe_to = "") {
        if (ffmpeg_missing()) return;
        const CommandResult ff = run_in_tree("", line, dir + "/ffmpeg.out", pipe_to);
        ASSERT_EQ(ff.exit_code, 0) << ff.output << read_all(dir + "/ffmpeg.out.log");
        EXPECT_EQ(read_all(dir + "/ffmpeg.out"), read_all(ref_file(test))) << "the ffmpeg command on " << test;
    }
    // FATE's framecrc line with `cmd`, run by vfilter ffmpeg on every device: FATE's reference, byte for byte.
    void expect_vfilter_gives_reference(const std::string& test, const Words& cmd) {
        const std::string expected = read_all(ref_file(test));
        ASSERT_FALSE(expected.empty()) << ref_file(test);
        for (const Device& d : devices_here()) {
            const std::string out = dir + "/vfilter-" + d.name + ".crc";
            const CommandResult vf = run_in_tree(d.env, fate_framecrc(kVfilter, cmd), out);
            ASSERT_EQ(vf.exit_code, 0) << vf.output;
            EXPECT_EQ(read_all(out), expected) << test << " on " << d.name << ": vfilter ffmpeg's framecrc differs from FATE's";
        }
    }
    std::string dir;
};

TEST_F(Fate, FilterBoxblurWordForWord) {
    const Words cmd = fate_cmd("fate-filter-boxblur");
    ASSERT_EQ(cmd.front(), "framecrc");
    const Words args(cmd.begin() + 1, cmd.end());
    expect_ffmpeg_gives_reference("fate-filter-boxblur", fate_framecrc(kFfmpeg, args));
    expect_vfilter_gives_reference("fate-filter-boxblur", args);
}

TEST_F(Fate, FilterUnsharpWordForWord) {
    const Words cmd = fate_cmd("fate-filter-unsharp");
    ASSERT_EQ(cmd.front(), "framecrc");
    const Words args(cmd.begin() + 1, cmd.end());
    expect_ffmpeg_gives_reference("fate-filter-unsharp", fate_framecrc(kFfmpeg, args));
    expect_vfilter_gives_reference("fate-filter-unsharp", args);
}

// -lavfi testsrc2=...,format=yuv420p10,unsharp=...,scale: the ffmpeg command makes the frames up
// to unsharp (lossless FFV1); vfilter takes FATE's line from unsharp on, -lavfi GRAPH read as
// -i FRAMES -vf unsharp (the closing scale converts nothing: -pix_fmt is the frames' own).
TEST_F(Fate, FilterUnsharpYuv420p10FromTheSourcesFrames) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed: it makes this test's testsrc2 frames";
    const std::string test = "fate-filter-unsharp-yuv420p10";
    const Words cmd = fate_cmd(test);
    ASSERT_GE(cmd.size(), 3u);
    ASSERT_EQ(cmd[0], "framecrc");
    ASSERT_EQ(cmd[1], "-lavfi");
    const std::string graph = cmd[2];
    const size_t unsharp = graph.find(",unsharp=");
    ASSERT_NE(unsharp, std::string::npos) << graph;
    ASSERT_EQ(graph.substr(graph.rfind(',')), ",scale") << graph;
    const std::string source = graph.substr(0, unsharp), filter = graph.substr(unsharp + 1, graph.rfind(',') - unsharp - 1);
    const Words args(cmd.begin() + 1, cmd.end());
    expect_ffmpeg_gives_reference(test, fate_framecrc(kFfmpeg, args));

    const std::string frames = dir + "/source.nut";
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-lavfi", source, "-flags", "+bitexact", "-sws_flags",
                                            "+accurate_rnd+bitexact", "-c:v", "ffv1", frames});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    Words vf_args = {"-i", frames, "-vf", filter};
    vf_args.insert(vf_args.end(), cmd.begin() + 3, cmd.end());
    expect_vfilter_gives_reference(test, vf_args);
}

// fate-run.sh's refcmp_metadata REFCMP PIXFMT FUZZ: testsrc2 in PIXFMT, avgblur=4 of it compared
// with it by REFCMP (psnr or ssim), metadata=print, checked by refcmp-metadata.awk within FUZZ.
class FateRefcmp : public Fate, public ::testing::WithParamInterface<const char*> {};

TEST_P(FateRefcmp, AvgblurByVfilterMetricsByFfmpeg) {
    if (ffmpeg_missing()) GTEST_SKIP() << "the ffmpeg command is not installed: it makes testsrc2's frames and compares";
    const std::string test = GetParam();
    const Words cmd = fate_cmd(test);
    ASSERT_EQ(cmd.size(), 4u);
    ASSERT_EQ(cmd[0], "refcmp_metadata");
    const std::string refcmp = cmd[1], pix_fmt = cmd[2], fuzz = cmd[3];
    // The graph as fate-run.sh writes it; a FATE that wrote another would fail here, not pass unread.
    const std::string source = "testsrc2=size=300x200:rate=1:duration=5,format=" + pix_fmt;
    const std::string full_graph = "testsrc2=size=300x200:rate=1:duration=5,format=${pixfmt},split[ref][tmp];[tmp]avgblur=4[enc];"
                                   "[enc][ref]${refcmp},metadata=print:file=-";
    ASSERT_NE(read_all(fate_tree().root + "/tests/fate-run.sh").find(full_graph), std::string::npos);
    const std::string awk = "awk -v ref=" + quoted(ref_file(test)) + " -v fuzz=" + fuzz + " -f tests/refcmp-metadata.awk -";
    const CommandResult probe = run_command({"ffmpeg", "-v", "error", "-filters"});
    if (probe.output.find(" " + refcmp + " ") == std::string::npos || probe.output.find(" metadata ") == std::string::npos)
        GTEST_SKIP() << "this ffmpeg lacks the " << refcmp << " or metadata filter";

    std::string graph = full_graph;
    graph.replace(graph.find("${pixfmt}"), 9, pix_fmt);
    graph.replace(graph.find("${refcmp}"), 9, refcmp);
    expect_ffmpeg_gives_reference(test, fate_ffmpeg(kFfmpeg, {"-auto_conversion_filters", "-lavfi", graph, "-f", "null", "/dev/null"}), awk);

    // The frames in NUT for vfilter, and raw for the comparison, whose rawvideo demuxer gives them
    // testsrc2's time base (1/rate), so that metadata=print shows FATE's pts.
    const std::string ref = dir + "/ref.nut", ref_raw = dir + "/ref.raw";
    CommandResult made = run_command({"ffmpeg", "-v", "error", "-y", "-lavfi", source, "-c:v", "rawvideo", ref});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    made = run_command({"ffmpeg", "-v", "error", "-y", "-i", ref, "-c:v", "copy", "-f", "rawvideo", ref_raw});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const Words raw_input = {"-f", "rawvideo", "-pix_fmt", pix_fmt, "-video_size", "300x200", "-framerate", "1", "-i"};
    for (const Device& d : devices_here()) {
        const std::string enc = dir + "/enc-" + d.name + ".nut";
        const CommandResult vf = run_in_tree(d.env, fate_ffmpeg(kVfilter, {"-i", ref, "-vf", "avgblur=4", "-c:v", "rawvideo", "-y", enc}),
                                             dir + "/vfilter.log");
        ASSERT_EQ(vf.exit_code, 0) << vf.output;
        const auto frames = read_video_frames(enc);
        ASSERT_EQ(frames.size(), 5u);
        const char* written = av_get_pix_fmt_name(static_cast<AVPixelFormat>(frames[0]->format));
        ASSERT_EQ(written, pix_fmt) << test << ": vfilter must write " << pix_fmt << " input as " << pix_fmt
                                    << " (RGB filtered as RGB) for FFmpeg's " << refcmp << " to compare plane for plane";
        made = run_command({"ffmpeg", "-v", "error", "-y", "-i", enc, "-c:v", "copy", "-f", "rawvideo", enc + ".raw"});
        ASSERT_EQ(made.exit_code, 0) << made.output;
        Words compare_args = {"-auto_conversion_filters"};
        for (const std::string& input : {enc + ".raw", ref_raw}) {
            compare_args.insert(compare_args.end(), raw_input.begin(), raw_input.end());
            compare_args.push_back(input);
        }
        for (const std::string& w : Words{"-lavfi", "[0:v][1:v]" + refcmp + ",metadata=print:file=-", "-f", "null", "/dev/null"})
            compare_args.push_back(w);
        const Words compare = fate_ffmpeg(kFfmpeg, compare_args);
        const std::string out = dir + "/metrics-" + d.name + ".txt";
        const CommandResult ff = run_in_tree("", compare, out, awk);
        ASSERT_EQ(ff.exit_code, 0) << ff.output << read_all(out + ".log");
        EXPECT_EQ(read_all(out), read_all(ref_file(test))) << test << " with vfilter's avgblur on " << d.name;
    }
}

INSTANTIATE_TEST_SUITE_P(Avgblur, FateRefcmp,
                         ::testing::Values("fate-filter-refcmp-psnr-yuv", "fate-filter-refcmp-ssim-yuv",
                                           "fate-filter-refcmp-psnr-rgb", "fate-filter-refcmp-ssim-rgb"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                             std::string name = std::string(i.param).substr(19);  // after fate-filter-refcmp-
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace vf::fate_filter_test
