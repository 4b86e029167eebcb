// The command line, run as a user runs it: every bad input gives a one-line message, its
// documented exit code (docs/exit-codes.md), and leaves no output behind.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include <fstream>
#include <sstream>

#include "support/clip_writer.hpp"
#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

constexpr int kUsage = 2, kInput = 3, kOutput = 4;

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir();
        ClipSpec c;
        c.path = dir + "/in.mkv";
        c.width = 48;
        c.height = 32;
        c.frames = 5;
        write_clip(c);
        clip = c.path;
    }
    // Runs vfilter expecting failure: checks code, message, a single error line, no output.
    void expect_failure(const std::vector<std::string>& args, int code, const std::string& message,
                        const std::string& out = "") {
        const CommandResult r = run_vfilter(args);
        EXPECT_EQ(r.exit_code, code) << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << "expected '" << message << "' in:\n" << r.output;
        EXPECT_EQ(lines_containing(r.output, "error"), 1) << r.output;
        if (!out.empty()) {
            EXPECT_FALSE(file_exists(out)) << out;
            EXPECT_FALSE(file_exists(out + ".partial")) << out;
        }
    }
    std::string dir, clip;
};

TEST_F(Cli, FiltersAFileAndPrintsTheSummary) {
    const CommandResult r = run_vfilter({"-i", clip, "-f", "sobel", "-o", dir + "/out.mp4"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fps sustained"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("bottleneck:"), std::string::npos);
    EXPECT_EQ(summarize(dir + "/out.mp4").video_pts.size(), 5u);
}

// As with ffmpeg: -vf for the filter, the output last without -o; FFmpeg's own filter string
// with --compat ffmpeg (or VFILTER_COMPAT=ffmpeg).
TEST_F(Cli, FFmpegsSpellingsAndCompat) {
    CommandResult r = run_vfilter({"-i", clip, "-vf", "sobel=1:0.5", dir + "/last.mp4"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(summarize(dir + "/last.mp4").video_pts.size(), 5u);
    r = run_vfilter({"--compat", "ffmpeg", "-i", clip, "-filter:v", "convolution=1 2 1 2 4 2 1 2 1:1 2 1 2 4 2 1 2 1:1 2 1 2 4 2 1 2 1:"
                     "1 2 1 2 4 2 1 2 1:1/16:1/16:1/16:1/16", "-o", "null"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = run_vfilter({"--compat", "ffmpg", "-i", clip, "-o", "null"});
    EXPECT_EQ(r.exit_code, kUsage) << r.output;
    EXPECT_NE(r.output.find("--compat"), std::string::npos) << r.output;
    expect_failure({"-i", clip, "-o", dir + "/a.mp4", dir + "/b.mp4"}, kUsage, "two outputs given", dir + "/a.mp4");
    EXPECT_FALSE(file_exists(dir + "/b.mp4"));
    expect_failure({"-i", clip, "-vf", "sobel=1:2:3:4", dir + "/c.mp4"}, kUsage, "sobel takes 3 (planes, scale, delta)",
                   dir + "/c.mp4");
    expect_failure({"-i", clip, "-vf", "convolution=0m=1 2 1 2 4 2 1 2 1:0rdiv=1/x", dir + "/d.mp4"}, kUsage,
                   "0rdiv='1/x' is not a number", dir + "/d.mp4");
}

// ffmpeg's other options on vfilter's command line: each named, with vfilter's own where it has
// one, and never read as -f (vfilter's filter) followed by the rest ("-f rames:v", "-f lags").
TEST_F(Cli, FFmpegsOtherOptionsAreNamedNeverMisread) {
    const struct {
        std::vector<std::string> words;
        const char* says;
    } cases[] = {
        {{"-c:v", "libx264"}, "'-c:v' is ffmpeg's option; vfilter's is --codec"},
        {{"-frames:v", "3"}, "'-frames:v' is ffmpeg's option; vfilter's is --frames"},
        {{"-pix_fmt", "yuv420p"}, "vfilter writes the input's pixel format"},
        {{"-threads", "2"}, "--threads (filter threads)"},
        {{"-flags", "+bitexact"}, "'-flags' is not a vfilter option"},
        {{"-filter_complex", "sobel"}, "-f/--filter"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args{"-i", clip};
        args.insert(args.end(), c.words.begin(), c.words.end());
        args.push_back(dir + "/ff.mp4");
        expect_failure(args, kUsage, c.says, dir + "/ff.mp4");
        const CommandResult r = run_vfilter(args);
        for (const char* misread : {"rames", "lags", "ilter_complex", "At Most 1"})
            EXPECT_EQ(r.output.find(std::string("'") + misread), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("At Most"), std::string::npos) << r.output;
    }
    // vfilter's own words still pass: a negative number, -vf, a one-letter option.
    const CommandResult r = run_vfilter({"-i", clip, "-vf", "sobel=1:1:-5", "-y", "-o", "null"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Cli, ListFiltersHelpAndVersion) {
    CommandResult r = run_vfilter({"--list-filters"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* f : {"sobel", "gaussian", "box", "sharpen", "emboss", "laplacian", "convolution", "prewitt", "scharr",
                          "roberts", "gblur", "avgblur", "by position"})
        EXPECT_NE(r.output.find(f), std::string::npos) << f;
    r = run_vfilter({"--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.output.find("--filter"), std::string::npos);
    r = run_vfilter({"--version"});
    EXPECT_EQ(r.exit_code, 0);
}

// The reference documents are the program's own tables: docs/filters.md holds --list-filters
// and docs/kernels.md --list-kernels (in builds with CUDA), byte for byte.
std::string between(const std::string& text, const std::string& begin, const std::string& end) {
    const size_t a = text.find(begin);
    const size_t b = a == std::string::npos ? a : text.find(end, a + begin.size());
    return b == std::string::npos ? "(markers not found)" : text.substr(a + begin.size(), b - a - begin.size());
}

std::string read_doc(const std::string& name) {
    std::ifstream f(std::string(VF_SOURCE_DIR) + "/docs/" + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

TEST_F(Cli, DocsHoldTheProgramsTables) {
    const CommandResult filters = run_vfilter({"--list-filters"});
    ASSERT_EQ(filters.exit_code, 0);
    EXPECT_EQ(between(read_doc("filters.md"), "```\n", "```\n"), filters.output)
        << "docs/filters.md is out of date: paste the output of vfilter --list-filters";
    const CommandResult kernels = run_vfilter({"--list-kernels"});
    if (kernels.exit_code != 0) GTEST_SKIP() << "this build has no CUDA backend: " << kernels.output;
    EXPECT_NE(kernels.output.find("| `strip16-dp4a` |"), std::string::npos) << kernels.output;
    EXPECT_EQ(between(read_doc("kernels.md"), "<!-- vfilter --list-kernels -->\n", "<!-- end -->\n"), kernels.output)
        << "docs/kernels.md is out of date: paste the output of vfilter --list-kernels";
}

TEST_F(Cli, MissingOrUnreadableInput) {
    expect_failure({"-i", dir + "/nope.mp4", "-o", dir + "/o.mp4"}, kInput, "No such file", dir + "/o.mp4");
    std::ofstream(dir + "/text.mp4") << "this is not a video\n";
    expect_failure({"-i", dir + "/text.mp4", "-o", dir + "/o.mp4"}, kInput, "not a media file", dir + "/o.mp4");
    std::ofstream(dir + "/empty.mp4").close();
    expect_failure({"-i", dir + "/empty.mp4", "-o", dir + "/o.mp4"}, kInput, "empty.mp4", dir + "/o.mp4");
}

// A local playlist must not make vfilter reach the network, and the reverse (media/protocols).
TEST_F(Cli, PlaylistsCannotLeaveTheirInputsClass) {
    const std::string playlist = dir + "/list.m3u8";
    std::ofstream(playlist) << "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nhttp://127.0.0.1:9/seg.ts\n#EXT-X-ENDLIST\n";
    expect_failure({"-i", playlist, "-o", dir + "/o.mp4"}, kInput, "list.m3u8", dir + "/o.mp4");
    expect_failure({"-i", "concat:" + clip + "|" + clip, "-o", dir + "/o.mp4"}, kInput, "--allow-protocols",
                   dir + "/o.mp4");
    expect_failure({"-i", clip, "--allow-protocols", "http,https", "-o", dir + "/o.mp4"}, kInput,
                   "protocol 'file' is not allowed", dir + "/o.mp4");
}

// A source that accepts the connection and then sends nothing (a dead camera behind a live
// socket): vfilter must give up after --timeout with a clear error, not hang.
TEST_F(Cli, SilentNetworkSourceTimesOut) {
    if (run_command({"sh", "-c", "ffmpeg -hide_banner -protocols 2>/dev/null | grep -qx ' *tcp'"}).exit_code != 0)
        GTEST_SKIP() << "this FFmpeg has no network protocols (the GPU machines' minimal static build)";
    const int server = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(server, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(server, 4), 0);
    socklen_t len = sizeof addr;
    ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    const std::string url = "tcp://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
    const auto start = std::chrono::steady_clock::now();
    expect_failure({"-i", url, "--timeout", "1", "-o", dir + "/o.mp4"}, kInput, "sent nothing for 1 s", dir + "/o.mp4");
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(took, 20.0) << "the timeout did not end the wait";
    close(server);  // the kernel accepted the connection into the backlog; nothing was ever sent
}

TEST_F(Cli, AudioOnlyInputHasNoVideo) {
    const CommandResult made = run_command({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1", dir + "/a.mka"});
    if (made.exit_code != 0) GTEST_SKIP() << "ffmpeg command not available: " << made.output;
    expect_failure({"-i", dir + "/a.mka", "-o", dir + "/o.mp4"}, kInput, "has no video stream", dir + "/o.mp4");
}

TEST_F(Cli, BadFiltersAndOptions) {
    const std::string out = dir + "/o.mp4";
    expect_failure({"-i", clip, "-f", "blur", "-o", out}, kUsage, "unknown filter 'blur'", out);
    expect_failure({"-i", clip, "-f", "gaussian=sigma=0", "-o", out}, kUsage, "out of range", out);
    expect_failure({"-i", clip, "-f", "gaussian=sigma=nan", "-o", out}, kUsage, "not a number", out);
    expect_failure({"-i", clip, "-f", "gaussian=sigma=inf", "-o", out}, kUsage, "finite", out);
    expect_failure({"-i", clip, "-f", "gaussian=sigmaa=1", "-o", out}, kUsage, "unknown option", out);
    expect_failure({"-i", clip, "-f", "convolution=m=1 2 3 4", "-o", out}, kUsage, "odd square", out);
    std::ofstream(dir + "/even.txt") << "1 1\n1 1\n";
    expect_failure({"-i", clip, "-f", "convolution=file=" + dir + "/even.txt", "-o", out}, kUsage, "must be odd", out);
    {
        std::ofstream big(dir + "/big.txt");
        for (int j = 0; j < 131; ++j) {
            for (int i = 0; i < 131; ++i) big << "1 ";
            big << "\n";
        }
    }
    expect_failure({"-i", clip, "-f", "convolution=file=" + dir + "/big.txt", "-o", out}, kUsage, "larger than", out);
    expect_failure({"-i", clip, "--codec", "nosuchcodec", "-o", out}, kUsage, "unknown video codec", out);
    expect_failure({"-i", clip, "--crf", "99", "-o", out}, kUsage, "crf", out);
    expect_failure({"-i", clip, "--bogus-flag", "-o", out}, kUsage, "bogus", out);
    expect_failure({"-i", clip}, kUsage, "no output given");
    expect_failure({"-i", clip, "--device", "tpu", "-o", out}, kUsage, "--device", out);
    expect_failure({"-i", clip, "--kernel", "strip32", "-o", out}, kUsage, "--kernel 'strip32': expected auto", out);
    // A forced GPU path that cannot compute the filter is refused before anything opens (also
    // where no GPU is present).
    expect_failure({"-i", clip, "-f", "convolution=m=1 2 3 4 5 6 7 8 9", "--kernel", "separable", "-o", out}, kUsage,
                   "is not separable", out);
    expect_failure({"-i", clip, "-f", "convolution=m=0.5 1 0.5 1 3 1 0.5 1 0.5", "--kernel", "tensor", "-o", out}, kUsage,
                   "not whole numbers", out);
    expect_failure({"-i", clip, "-f", "convolution=m=1 2 3 4 5000 6 7 8 9", "--kernel", "tensor", "-o", out}, kUsage,
                   "beyond +-2048", out);
    // Retention needs a segmented recording, and readable amounts.
    expect_failure({"-i", clip, "--retain", "7d", "-o", out}, kUsage, "add --segment", out);
    expect_failure({"-i", clip, "--retain-size", "5G", "-o", out}, kUsage, "add --segment", out);
    expect_failure({"-i", clip, "--min-free", "5%", "-o", out}, kUsage, "add --segment", out);
    expect_failure({"-i", clip, "--segment", "2", "--retain", "7 days", "-o", out}, kUsage, "90s, 30m, 12h, 7d or 2w", out);
    expect_failure({"-i", clip, "--segment", "2", "--retain-size", "5g", "-o", out}, kUsage, "500M, 20G", out);
    expect_failure({"-i", clip, "--segment", "2", "--min-free", "150%", "-o", out}, kUsage, "such as 5%", out);
    // serve's process settings are its config file's serve: block (tests/cli/serve_settings_test.cpp).
    std::ofstream(dir + "/serve.yaml") << "streams: []\nserve:\n  min-free: x\n  nvdec-slots: 5000\n";
    expect_failure({"serve", "--config", dir + "/serve.yaml"}, kUsage, "serve: min-free: 'x': expected a share of the disk");
    std::ofstream(dir + "/serve.yaml") << "streams: []\nserve:\n  nvdec-slots: 8x\n";
    expect_failure({"serve", "--config", dir + "/serve.yaml"}, kUsage, "serve: nvdec-slots: '8x'");
    expect_failure({"serve", "--config", dir + "/nope.yaml", "--nvdec-share", "yes"}, kUsage, "--nvdec-share");
    expect_failure({"-i", clip, "--nvdec-decoder", "nvidia", "-o", out}, kUsage, "expected ffmpeg, vfilter", out);
}

TEST_F(Cli, NeverOverwritesTheInput) {
    const std::string before = read_all(clip);
    expect_failure({"-i", clip, "-o", clip, "-y"}, kOutput, "is the input file");
    const std::string link = dir + "/same-file.mkv";
    ASSERT_EQ(symlink(clip.c_str(), link.c_str()), 0);
    expect_failure({"-i", clip, "-o", link, "-y"}, kOutput, "is the input file");
    EXPECT_EQ(read_all(clip), before);
}

TEST_F(Cli, ExistingOutputNeedsOverwriteFlag) {
    const std::string out = dir + "/exists.mp4";
    std::ofstream(out) << "precious";
    const CommandResult r = run_vfilter({"-i", clip, "-o", out});
    EXPECT_EQ(r.exit_code, kOutput) << r.output;
    EXPECT_NE(r.output.find("pass -y"), std::string::npos) << r.output;
    EXPECT_EQ(read_all(out), "precious");
    const CommandResult y = run_vfilter({"-i", clip, "-o", out, "-y"});
    EXPECT_EQ(y.exit_code, 0) << y.output;
    EXPECT_EQ(summarize(out).video_pts.size(), 5u);
}

TEST_F(Cli, UnwritableOutputLocation) {
    expect_failure({"-i", clip, "-o", dir + "/no/such/dir/o.mp4"}, kOutput, "cannot write output", dir + "/no/such/dir/o.mp4");
    expect_failure({"-i", clip, "-o", "/proc/vfilter-test.mp4"}, kOutput, "cannot write output");
    expect_failure({"-i", clip, "-o", dir + "/o.nosuchext"}, kUsage, "container format", dir + "/o.nosuchext");
}

TEST_F(Cli, DamagedInputExitsWithFiveAndKeepsTheOutput) {
    ClipSpec c;
    c.path = dir + "/long.mkv";
    c.width = 64;
    c.height = 48;
    c.frames = 60;
    write_clip(c);
    const std::string bytes = read_all(c.path);
    std::ofstream(dir + "/cut.mkv", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 6 / 10));
    const CommandResult r = run_vfilter({"-i", dir + "/cut.mkv", "-o", dir + "/cut-out.mkv", "--codec", "ffv1"});
    EXPECT_EQ(r.exit_code, 5) << r.output;
    EXPECT_NE(r.output.find("input damaged"), std::string::npos) << r.output;
    EXPECT_GT(summarize(dir + "/cut-out.mkv").video_pts.size(), 20u);
}

TEST_F(Cli, RandomBytesInTheMiddleNeitherCrashNorHang) {
    ClipSpec c;
    c.path = dir + "/mpeg4.avi";
    c.width = 64;
    c.height = 48;
    c.frames = 40;
    c.video_codec = "mpeg4";
    c.audio = false;
    write_clip(c);
    std::string bytes = read_all(c.path);
    uint32_t x = 12345;
    for (size_t i = bytes.size() / 3; i < bytes.size() / 2; ++i) {
        x = x * 1664525u + 1013904223u;
        bytes[i] = static_cast<char>(x >> 24);
    }
    std::ofstream(dir + "/bad.avi", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    const CommandResult r = run_vfilter({"-i", dir + "/bad.avi", "-o", dir + "/bad-out.mkv", "--codec", "ffv1"}, 60);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.output;
    EXPECT_GT(summarize(dir + "/bad-out.mkv").video_pts.size(), 10u);
}

TEST_F(Cli, StatsJsonAndJsonLogs) {
    const CommandResult r = run_vfilter({"-i", clip, "-o", "null", "-f", "box=radius=2", "--stats-json", dir + "/s.json",
                                         "--log-format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(read_all(dir + "/s.json").find("\"sustained_fps\""), std::string::npos);
    EXPECT_NE(r.output.find("{\"level\":\"info\""), std::string::npos) << r.output;
}

TEST_F(Cli, BenchPrintsATable) {
    const CommandResult r = run_vfilter({"bench", "--size", "64x48", "--repeat", "3", "--filter", "sobel", "--json",
                                         dir + "/b.json"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("64x48"), std::string::npos) << r.output;
    EXPECT_NE(read_all(dir + "/b.json").find("ms_median"), std::string::npos);
}

// A container that cannot hold the video codec is refused before anything is opened, in one line
// that names a codec that fits (where this FFmpeg has one) or another extension.
TEST_F(Cli, AContainerThatCannotHoldTheCodecNamesTheFix) {
    const std::string webm = dir + "/o.webm";
    expect_failure({"-i", clip, "-f", "sobel", "-o", webm}, kUsage, "which holds VP8, VP9 or AV1, not H.264", webm);
    const CommandResult r = run_vfilter({"-i", clip, "-o", webm});
    EXPECT_TRUE(r.output.find("--codec libvpx") != std::string::npos || r.output.find("no encoder") != std::string::npos) << r.output;
    expect_failure({"-i", clip, "-o", dir + "/o.ogg"}, kUsage, "which holds Theora or VP8", dir + "/o.ogg");
    expect_failure({"-i", clip, "-o", dir + "/o.gif"}, kUsage, "which holds GIF pictures", dir + "/o.gif");
    const CommandResult avi = run_vfilter({"-i", clip, "-f", "sobel", "-o", dir + "/o.avi"});
    EXPECT_EQ(avi.exit_code, 0) << "H.264 in AVI is fine: " << avi.output;
}

// pattern:// pictures: live (paced at their rate), endless until --frames; a bad one refused in one line.
TEST_F(Cli, APatternInputIsPacedAndRunsUntilFrames) {
    const auto start = std::chrono::steady_clock::now();
    const CommandResult r = run_vfilter({"-i", "pattern://?size=160x90&rate=50&motion=checker", "-f", "sobel", "--frames", "25",
                                         "--codec", "ffv1", "-o", dir + "/p.mkv"});
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_GE(took, 0.45) << "25 frames at 50 fps take half a second";
    EXPECT_EQ(read_video_frames(dir + "/p.mkv").size(), 25u);
    expect_failure({"-i", "pattern://?motion=spin", "-o", dir + "/q.mkv"}, kUsage, "'motion=spin'", dir + "/q.mkv");
}

// Without a GPU (a build with CUDA on a machine without one: CI's), the line a user sees says so in
// their words; CUDA's own message only with -v.
TEST_F(Cli, WithoutAGpuTheLineSaysSoInAUsersWords) {
#ifndef VF_HAVE_CUDA
    GTEST_SKIP() << "built without CUDA: no GPU is looked for";
#else
    std::string why;
    if (cuda_device_available(&why)) GTEST_SKIP() << "a GPU answers here";
    const CommandResult r = run_vfilter({"-i", clip, "-f", "sobel", "-o", "null"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("filtering on the CPU"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("no NVIDIA GPU"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << "CUDA's words only with -v: " << r.output;
    const CommandResult v = run_vfilter({"-v", "-i", clip, "-f", "sobel", "-o", "null"});
    EXPECT_NE(v.output.find("CUDA:"), std::string::npos) << v.output;
#endif
}

}  // namespace
}  // namespace vf
