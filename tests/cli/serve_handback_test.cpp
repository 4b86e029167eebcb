// A camera handed back between two `vfilter serve` shards coordinated through a real etcd on
// loopback (docs/kubernetes.md, "Failover"), checked frame by frame: the camera is a built-in
// pattern numbered by the wall clock (pattern://?clock=wall), so both shards read the same frame at
// the same moment, and every recorded frame says which one it is. Its shard is killed (a survivor
// takes it over: the one gap allowed), then started again: the camera moves back at a segment
// boundary, and the two shards' recordings meet with no frame lost and none written twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "decode/pattern_url.hpp"
#include "support/child_process.hpp"
#include "support/etcd_server.hpp"
#include "support/run_command.hpp"
#include "support/serve_api.hpp"
#include "support/shard_names.hpp"

namespace vf::serve_handback_test {
namespace {

using namespace test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kToken = "handback-token-0123456789";
constexpr int kWidth = 320, kHeight = 180;

// Frames the stream `name` has written on the shard at `port` (-1: not running there).
int64_t frames_written(int port, const std::string& name) {
    const ApiAnswer answer = api_get(port, "/streams", kToken);
    if (answer.status != 200) return -1;
    const nlohmann::json& list = answer.body;
    if (list.is_array())
        for (const auto& s : list)
            if (s.value("name", "") == name && s.value("state", "") == "running") return s.value("frames_out", int64_t{0});
    return -1;
}

bool wait_until(const std::function<bool()>& done, double seconds) {
    const Clock::time_point t0 = Clock::now();
    while (!done()) {
        if (std::chrono::duration<double>(Clock::now() - t0).count() > seconds) return false;
        std::this_thread::sleep_for(100ms);
    }
    return true;
}

// The frame numbers a segment holds, in order (decoded by ffmpeg to 8-bit luma).
std::vector<int64_t> numbers_in(const std::string& segment, const std::string& scratch) {
    const CommandResult r = run_command({"ffmpeg", "-v", "error", "-y", "-i", segment, "-f", "rawvideo", "-pix_fmt", "gray", scratch});
    EXPECT_EQ(r.exit_code, 0) << segment << ": " << r.output;
    std::ifstream in(scratch, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<int64_t> numbers;
    const size_t frame = size_t{kWidth} * kHeight;
    for (size_t at = 0; at + frame <= bytes.size(); at += frame)
        numbers.push_back(number_in_strip(reinterpret_cast<const uint8_t*>(bytes.data() + at), kWidth, kWidth, kHeight));
    return numbers;
}

TEST(Handback, ACameraMovesBackWithNoFrameLostOrWrittenTwice) {
    if (!EtcdServer::available()) GTEST_SKIP() << "etcd is not installed (scripts/install_deps.sh --test installs etcd-server)";
    const std::string dir = temp_dir(), rec = dir + "/rec";
    std::filesystem::create_directories(rec);
    const std::string cam = name_in_shard("cam", 1, 2);
    std::ofstream(dir + "/cams.yaml") << "defaults: {filter: identity, codec: libx264, preset: ultrafast, segment: 2}\nstreams:\n"
                                      << "  - {name: " << cam << ", input: 'pattern://?size=" << kWidth << "x" << kHeight
                                      << "&rate=25&clock=wall', output: '" << rec << "/" << cam << "-%Y%m%d-%H%M%S.mp4'}\n"
                                      << "serve: {store-lease: 3, recordings-root: '" << rec << "'}\n";
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    const int ports[2] = {free_port(), free_port()};
    const std::string peers = "http://127.0.0.1:" + std::to_string(ports[0]) + ",http://127.0.0.1:" + std::to_string(ports[1]);
    int started = 0;
    const auto start = [&](int k) {
        auto p = std::make_unique<ChildProcess>(
            std::vector<std::string>{VFILTER_BIN, "serve", "--config", dir + "/cams.yaml", "--shard", std::to_string(k) + "/2", "--api-port",
                                     std::to_string(ports[k]), "--api-token", kToken, "--store", etcd.url(), "--peers", peers},
            dir + "/serve-" + std::to_string(k) + "-" + std::to_string(++started) + ".log");
        EXPECT_TRUE(p->wait_for_log("control API: http://", 30)) << p->log();
        return p;
    };
    std::unique_ptr<ChildProcess> shard[2] = {start(0), start(1)};
    ASSERT_TRUE(wait_until([&] { return frames_written(ports[1], cam) > 50; }, 20)) << shard[1]->log();

    shard[1]->signal(SIGKILL);  // taken over by shard 0: the one gap
    shard[1]->wait(5);
    ASSERT_TRUE(wait_until([&] { return frames_written(ports[0], cam) > 75; }, 20)) << shard[0]->log();
    shard[1] = start(1);  // back: it moves at a segment boundary
    ASSERT_TRUE(wait_until([&] { return frames_written(ports[1], cam) > 75 && frames_written(ports[0], cam) < 0; }, 30))
        << shard[0]->log() << shard[1]->log();
    for (auto& s : shard) s->signal(SIGINT);
    for (auto& s : shard) EXPECT_EQ(s->wait(20), 0);

    std::vector<std::string> segments;
    for (const auto& e : std::filesystem::directory_iterator(rec))
        if (e.path().extension() == ".mp4") segments.push_back(e.path().string());
    std::sort(segments.begin(), segments.end());  // dated names: in time order
    std::vector<int64_t> all;
    std::string ranges;  // what each segment holds, for the failure's message
    for (const std::string& s : segments) {
        const std::vector<int64_t> n = numbers_in(s, dir + "/frames.gray");
        all.insert(all.end(), n.begin(), n.end());
        ranges += "\n  " + std::filesystem::path(s).filename().string() + ": " +
                  (n.empty() ? "no frames" : std::to_string(n.front()) + ".." + std::to_string(n.back()));
    }
    SCOPED_TRACE("segments:" + ranges);
    ASSERT_GT(all.size(), 200u);
    int gaps = 0;
    for (size_t i = 1; i < all.size(); ++i) {
        const int64_t step = (all[i] - all[i - 1]) & ((int64_t{1} << kPatternStripBits) - 1);
        EXPECT_NE(step, 0) << "frame " << all[i] << " written twice";
        EXPECT_LT(step, (int64_t{1} << kPatternStripBits) / 2) << "frame " << all[i] << " written before " << all[i - 1];
        if (step > 1) ++gaps;
    }
    EXPECT_EQ(gaps, 1) << "the take-over after the kill is the only gap; the hand-back has none";
}

}  // namespace
}  // namespace vf::serve_handback_test
