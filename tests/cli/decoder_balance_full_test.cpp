// DecoderBalance (app/serve/decoder_balance.hpp) on a machine near its limits: an NVDEC whose
// cameras fall behind is measured by what it kept (NVML's busy stays below 1 when it is full), and
// its extra streams move to the CPU decoders when the machine's idle cores leave them room.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "app/serve/decoder_balance.hpp"
#include "media/frame.hpp"

namespace vf {
namespace {

const double kCameraFrame = in_1080p30_cameras(1920, 1080, 1);

struct Cameras {  // where each camera decodes, and its frames so far
    std::vector<std::string> nvdec, cpu;
    std::map<std::string, int64_t> frames;
};

// `n` 1080p30 cameras placed by load, their inputs open where they were placed.
Cameras place_cameras(DecoderBalance& b, int n) {
    Cameras f;
    for (int i = 0; i < n; ++i) {
        const std::string name = "cam" + std::to_string(i);
        const bool nvdec = b.place(name, 0, 1, kNvdecFeederCoresVfilter).nvdec;
        b.input_opened(name, 1, nvdec, false, kCameraFrame);
        (nvdec ? f.nvdec : f.cpu).push_back(name);
        f.frames[name] = 0;
    }
    return f;
}

// A second in which the NVDEC streams decoded `nvdec_fps` frames each and the CPU's 30.
void second(Cameras& f, const std::vector<std::string>& on_nvdec, int nvdec_fps) {
    for (auto& [name, count] : f.frames)
        count += std::find(on_nvdec.begin(), on_nvdec.end(), name) != on_nvdec.end() ? nvdec_fps : 30;
}

// 200 cameras on 16 cores: NVDEC takes what its starting estimate allows and falls behind (28 of
// 30 fps) while NVML says 91% busy. Its capacity becomes what it kept, not kept / busy; the CPU
// decoders have no room by their estimate from the cores, but once the idle cores are measured
// the extra streams move there, until NVDEC is within its capacity, and nothing moves back. Then,
// with NVDEC keeping pace at that same busy, its capacity stays where it was found full.
TEST(DecoderBalance, AFullNvdecIsMeasuredByWhatItKeptAndItsExtraStreamsMoveToIdleCores) {
    DecoderBalance b({true}, 16, {0});
    Cameras f = place_cameras(b, 200);
    ASSERT_GT(f.nvdec.size(), 150u);
    for (int t = 0; t < 3; ++t) {
        b.nvdec_sampled({{0, 0.91}}, f.frames, t);
        second(f, f.nvdec, 28);
    }
    b.nvdec_sampled({{0, 0.91}}, f.frames, 3);
    const double kept = static_cast<double>(f.nvdec.size()) * 28 / 30;
    EXPECT_NEAR(b.nvdec_capacity(0), kept, 1e-6);
    EXPECT_NE(b.capacity_left()["nvdec_capacity"]["0"]["how"].get<std::string>().find("full"), std::string::npos);
    EXPECT_FALSE(b.next_move()) << "the CPU decoders are full by the estimate from the cores";

    b.cpu_sampled(7);  // 7 cores idle: room for (7 - 1) x 2.5 = 15 more camera streams
    int moved = 0;
    std::vector<std::string> still_nvdec = f.nvdec;
    while (const auto m = b.next_move()) {
        ASSERT_FALSE(m->to_nvdec) << m->stream << ": " << m->why;
        b.moving(*m);
        b.moved(m->stream, false);
        still_nvdec.erase(std::find(still_nvdec.begin(), still_nvdec.end(), m->stream));
        ASSERT_LE(++moved, 15);
    }
    EXPECT_LE(static_cast<double>(still_nvdec.size()), kept) << "NVDEC within the capacity it was found to have";
    EXPECT_GT(static_cast<double>(still_nvdec.size()), kept - 1) << "and no more moved than that";
    EXPECT_FALSE(b.next_move()) << "nothing moves straight back";

    for (int t = 10; t < 14; ++t) {
        b.nvdec_sampled({{0, 0.91}}, f.frames, t);
        second(f, still_nvdec, 30);
    }
    EXPECT_NEAR(b.nvdec_capacity(0), kept, 1.5) << "keeping pace at the busy it was full at: still full";
}

// The CPU decoders' capacity follows the machine's idle cores once they are measured (smoothed
// half way each sample), beyond the load the decoders carry; a capacity the serve: block sets
// stays as set.
TEST(DecoderBalance, TheCpuDecodersHaveTheRoomTheIdleCoresLeave) {
    DecoderBalance b({true}, 16, {0});
    const double estimate = b.capacity_left()["cpu"].get<double>();
    EXPECT_GT(estimate, 25) << "from the cores before anything is measured";
    b.cpu_sampled(5);
    EXPECT_EQ(b.capacity_left()["cpu"], 10) << "(5 - 1 spare) x 2.5";
    b.cpu_sampled(1);
    EXPECT_EQ(b.capacity_left()["cpu"], 5) << "idle 3 after smoothing: (3 - 1) x 2.5";
    b.cpu_sampled(0);
    b.cpu_sampled(0);
    EXPECT_EQ(b.capacity_left()["cpu"], 0) << "a busy machine leaves its CPU decoders no room";
    DecoderCapacity set{true};
    set.cpu_streams = 30;
    DecoderBalance s(set, 16, {0});
    s.cpu_sampled(0);
    EXPECT_EQ(s.capacity_left()["cpu"], 30);
}

}  // namespace
}  // namespace vf
