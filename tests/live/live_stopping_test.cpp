// Stopping a live run: SIGINT at random moments, SIGKILL at any moment, an input interrupted and a
// second signal; every recording left behind plays.
#include "live/live_fixture.hpp"

#include <random>

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// SIGINT at random moments of a live recording: exit 0 and a file that decodes to its end.
// The moments count from the job's start (its log), not from the process's: a signal before
// main() runs kills any program, and under the sanitizers on a busy machine that takes a while.
// The first run signals while the output is being opened, when the signal is held until the job exists.
TEST_F(Live, SigintAtRandomMomentsLeavesPlayableRecordings) {
    const std::string in = clip("in.mp4", "640x360", 6, 30, true);
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> ms(0, 4000);
    for (int run = 0; run < 5; ++run) {
        const int after = run == 0 ? 0 : ms(rng);
        const std::string out = dir + "/rec" + std::to_string(run) + ".mp4";
        auto v = vfilter({"-i", in, "--realtime", "-f", "sobel", "-o", out}, "v" + std::to_string(run) + ".log");
        ASSERT_TRUE(v->wait_for_log(run == 0 ? "input:" : "output:", 30)) << v->log();
        std::this_thread::sleep_for(std::chrono::milliseconds(after));
        v->signal(SIGINT);
        ASSERT_EQ(v->wait(30), kOk) << "SIGINT after " << after << " ms: " << v->log();
        EXPECT_FALSE(file_exists(out + ".partial"));
        // Stopped before the first frame reached the encoder (the early moments): nothing is kept,
        // and the one line saying so is all the user gets in place of a file.
        if (!file_exists(out)) {
            EXPECT_NE(v->log().find("was not kept"), std::string::npos) << "SIGINT after " << after << " ms: " << v->log();
            continue;
        }
        const Decoded d = decode(out);
        EXPECT_TRUE(d.clean) << "SIGINT after " << after << " ms: " << d.errors;
    }
}

// Waits until a recording takes its own name (its first fragment is complete); false after timeout_s.
static bool wait_for_file(const std::string& path, double timeout_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!file_exists(path)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(20ms);
    }
    return true;
}

// A killed recording (SIGKILL: no chance to finish) is playable up to its last fragment.
// Times count from the first fragment's appearance, not from the process's start: under the
// sanitizers on a busy 2-core machine, start-up alone has taken more than 3 s.
TEST_F(Live, KilledRecordingIsPlayableToItsLastFragment) {
    const std::string in = clip("in.mp4", "640x360", 8);
    for (const char* name : {"rec.mp4", "rec.mkv"}) {
        const std::string out = dir + "/" + name;
        auto v = vfilter({"-i", in, "--realtime", "-o", out}, std::string(name) + ".log");
        ASSERT_TRUE(wait_for_file(out, 30)) << name << ": a recording takes its own name once its first fragment is written: " << v->log();
        std::this_thread::sleep_for(2500ms);
        v->signal(SIGKILL);
        v->wait(10);
        const CommandResult r = run_command({"ffmpeg", "-nostdin", "-v", "error", "-i", out, "-f", "null", "-"}, 60);
        const Decoded d = decode(out);
        EXPECT_TRUE(d.clean) << name << ": " << d.errors;
        // Everything up to the last complete fragment: the first (1 s) and 2.5 s of real time
        // after it, less the fragment being written (1 s) and slack for a slow machine.
        EXPECT_GE(d.frames, 60) << name << ": " << r.output;
    }
}

// The same for a segmented recording: the segment being written when the recorder is killed
// holds every fragment completed before (in MP4 and in Matroska).
// A small picture, so that 3 s of it fit in a write buffer (as a quiet camera's would).
TEST_F(Live, KilledSegmentedRecordingIsPlayableToItsLastFragment) {
    const std::string in = clip("in.mp4", "160x120", 8);
    for (const char* ext : {"mp4", "mkv"}) {
        const std::string pattern = dir + "/seg" + ext + "." + ext;  // seg-00000.EXT, seg-00001.EXT, ...
        const std::string first = dir + "/seg" + ext + "-00000." + ext;
        auto v = vfilter({"-i", in, "--realtime", "--segment", "60", "-o", pattern}, std::string("seg-") + ext + ".log");
        ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
        // The header out, then its first fragment (the file grows past the header: on a starved
        // machine that may take longer than the fragment's second), then 2 s of real time.
        const auto deadline = std::chrono::steady_clock::now() + 30s;
        std::error_code ec;
        uintmax_t header = 0;
        while ((header = std::filesystem::file_size(first, ec)) == 0 || ec) {
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << ext << ": nothing written in 30 s: " << v->log();
            std::this_thread::sleep_for(20ms);
        }
        while (std::filesystem::file_size(first, ec) <= header && !ec) {
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << ext << ": no fragment after the header in 30 s: " << v->log();
            std::this_thread::sleep_for(20ms);
        }
        std::this_thread::sleep_for(2000ms);
        v->signal(SIGKILL);
        v->wait(10);
        const Decoded d = decode(first);
        EXPECT_TRUE(d.clean) << ext << ": " << d.errors;
        // At least the first fragment (a second of the 30 fps clip) and those completed after it.
        EXPECT_GE(d.frames, 30) << ext << ": " << d.errors;
    }
}

// Killed at any moment, a recording leaves either a file that plays without one decoder error or
// no file under its name at all (only OUT.partial, before its first fragment was complete): a
// header without a fragment plays nothing, and ffmpeg reports it as an error.
// The moments count from the job's start (its "output:" log line); the last run waits for the
// first fragment, so at least one recording is kept and checked however slow the machine.
TEST_F(Live, KilledAtAnyMomentLeavesNoBrokenRecording) {
    const std::string in = clip("in.mp4", "640x360", 8);
    int kept = 0;
    for (const int ms : {0, 300, 800, 1200, 1500, 2000, -1}) {
        const std::string tag = ms < 0 ? "after-first-fragment" : std::to_string(ms) + " ms after the output opened";
        const std::string out = dir + "/kill" + std::to_string(ms) + ".mp4";
        auto v = vfilter({"-i", in, "--realtime", "-o", out}, "kill" + std::to_string(ms) + ".log");
        ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
        if (ms < 0) {
            ASSERT_TRUE(wait_for_file(out, 30)) << "no first fragment in 30 s: " << v->log();
            std::this_thread::sleep_for(700ms);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        }
        v->signal(SIGKILL);
        v->wait(10);
        if (!file_exists(out)) continue;  // killed before the first fragment: OUT.partial alone
        ++kept;
        const Decoded d = decode(out);
        EXPECT_TRUE(d.clean) << "killed " << tag << ": " << d.errors;
        EXPECT_GT(d.frames, 0) << "killed " << tag;
    }
    EXPECT_GE(kept, 1);
}

// Ctrl-C on a live input keeps what the camera sent: the frames still inside a decoder with
// several frame threads (each holds one back; 16 cores gave 17) are drained into the output.
TEST_F(Live, InterruptedLiveInputKeepsTheFramesInsideTheDecoder) {
    const std::string ts = clip("in.ts", "320x240", 2);  // 60 frames
    const int port = free_port();
    const std::string out = dir + "/rec.mkv";
    auto v = vfilter({"-i", "udp://127.0.0.1:" + std::to_string(port), "-f", "sobel", "-o", out, "--hwdec", "none",
                      "--decoder-threads", "8", "--timeout", "60", "--on-overload", "block", "--stats-json", dir + "/s.json"});
    // Sent before vfilter listens, the first datagrams (the stream's headers among them) would be
    // lost: 28 of 60 frames under ASan on a busy 2-core machine.
    ASSERT_TRUE(wait_for_udp_bound(port, 30)) << v->log();
    const CommandResult sent = run_command({"ffmpeg", "-nostdin", "-v", "error", "-re", "-i", ts, "-c", "copy", "-f", "mpegts",
                                            "udp://127.0.0.1:" + std::to_string(port) + "?pkt_size=1316"}, 60);
    ASSERT_EQ(sent.exit_code, 0) << sent.output;
    std::this_thread::sleep_for(1500ms);  // everything sent has been read; the input stays silent, not ended
    v->signal(SIGINT);
    ASSERT_EQ(v->wait(30), kOk) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    // 7 frames held by the decoder's threads were lost before; a datagram lost on loopback is rare.
    EXPECT_GE(d.frames, 58) << v->log();
}

TEST_F(Live, SecondSignalFinishesTheOutputAtOnce) {
    const std::string in = clip("in.mp4", "1280x720", 20);
    const std::string out = dir + "/out.mp4";
    // Slow on purpose (about 75 ms a frame here, about 2 s under ASan), so the drain after the
    // first signal (the frame being filtered and the 2 queued) outlasts the 20 ms before the
    // second: with a Gaussian, once the CPU path got faster, the drain ended first and so did the
    // run, with 0 (seen once in CI). --low-latency writes each frame as soon as it is encoded
    // (x264 holds none back, every packet flushed), so the signals wait for the first frame in
    // the file, however slow the build.
    auto v = vfilter({"-i", in, "-f", "convolution=file=" + dense31_kernel(), "-o", out, "--threads", "1", "--low-latency"});
    ASSERT_TRUE(v->wait_for_log("output:", 30)) << v->log();
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    std::error_code ec;
    while (std::filesystem::file_size(out + ".partial", ec) < 4096 || ec) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no frame written in 60 s: " << v->log();
        std::this_thread::sleep_for(10ms);
    }
    v->signal(SIGINT);
    std::this_thread::sleep_for(20ms);
    v->signal(SIGINT);
    EXPECT_EQ(v->wait(20), 130) << v->log();
    const Decoded d = decode(out);
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_FALSE(file_exists(out + ".partial"));
}
