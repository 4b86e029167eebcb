// DecoderBalance (app/serve/decoder_balance.hpp): a GPU's NVDEC capacity learned from how busy its
// streams keep it (NVML), only from settled samples, per GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "app/serve/decoder_balance.hpp"
#include "media/frame.hpp"

namespace vf {
namespace {

const double kFrame1080 = in_1080p30_cameras(1920, 1080, 1);  // a 1080p frame a second, in camera streams

// `n` cameras of 1080p30 placed by load and open on NVDEC of `gpu`, named prefix0..
void open_on_nvdec(DecoderBalance& b, int n, const std::string& prefix, int gpu = 0) {
    for (int i = 0; i < n; ++i) {
        const std::string name = prefix + std::to_string(i);
        ASSERT_TRUE(b.place(name, gpu).nvdec) << name;
        b.input_opened(name, 1, true, false, kFrame1080);
    }
}

// Each stream of `frames` decoded `per_second` more frames over `seconds`.
void advance(std::map<std::string, int64_t>& frames, int per_second, double seconds) {
    for (auto& [name, count] : frames) count += static_cast<int64_t>(per_second * seconds);
}

std::map<std::string, int64_t> counters(int n, const std::string& prefix) {
    std::map<std::string, int64_t> frames;
    for (int i = 0; i < n; ++i) frames[prefix + std::to_string(i)] = 0;
    return frames;
}

// Without --nvdec-capacity, a GPU's NVDEC capacity is what its streams decode over how busy NVML
// says they keep it: 40 cameras at 30 fps keeping NVDEC 80% busy make 50, and the next camera,
// which the default's 175 would have put on NVDEC, goes to the CPU. A period teaches only when it
// is like the one before (the first after a start, or after a new job, does not); the figure
// follows the samples (a fifth of the way each); the first figure, and each that moved more than
// a tenth from the one last logged, is logged.
TEST(DecoderBalance, NvdecCapacityIsLearnedFromHowBusyItsStreamsKeepIt) {
    DecoderBalance b({true}, 16, {0});
    EXPECT_EQ(b.nvdec_capacity_from(0), "default");
    open_on_nvdec(b, 40, "s");
    auto frames = counters(40, "s");
    EXPECT_TRUE(b.nvdec_sampled({{0, 0.8}}, frames, 0).empty()) << "a first sample has nothing to compare with";
    advance(frames, 30, 1);
    EXPECT_TRUE(b.nvdec_sampled({{0, 0.8}}, frames, 1).empty()) << "a first period has none before it";
    EXPECT_EQ(b.nvdec_capacity_from(0), "default");
    advance(frames, 30, 1);
    const std::vector<std::string> said = b.nvdec_sampled({{0, 0.8}}, frames, 2);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("GPU 0: NVDEC capacity measured: 50 camera streams"), std::string::npos) << said[0];
    EXPECT_EQ(b.nvdec_capacity_from(0), "measured");
    EXPECT_NEAR(b.nvdec_capacity(0), 50, 1e-9);
    const nlohmann::json left = b.capacity_left();
    EXPECT_EQ(left["nvdec"]["0"], 10);
    EXPECT_EQ(left["nvdec_capacity"]["0"]["from"], "measured");
    EXPECT_EQ(left["nvdec_capacity"]["0"]["streams"], 50);
    EXPECT_EQ(left["nvdec_capacity"]["0"]["busy"], 0.8);
    const DecoderPlacement next = b.place("next", 0);
    EXPECT_FALSE(next.nvdec) << "NVDEC 80% full of its measured capacity: " << next.why;
    EXPECT_NE(next.why.find("NVDEC of GPU 0 80% used"), std::string::npos) << next.why;
    b.release("next");
    // New jobs (every count down), then twice the frames at the same busy: a fifth of the way from
    // the figure to 100 each time.
    frames = counters(40, "s");
    EXPECT_TRUE(b.nvdec_sampled({{0, 0.8}}, frames, 3).empty());
    advance(frames, 60, 1);
    EXPECT_TRUE(b.nvdec_sampled({{0, 0.8}}, frames, 4).empty()) << "the period before was not known whole";
    EXPECT_NEAR(b.nvdec_capacity(0), 50, 1e-9);
    advance(frames, 60, 1);
    std::vector<std::string> changed = b.nvdec_sampled({{0, 0.8}}, frames, 5);
    EXPECT_NEAR(b.nvdec_capacity(0), 60, 1e-9);
    ASSERT_EQ(changed.size(), 1u) << "60: more than a tenth above the 50 logged";
    EXPECT_NE(changed[0].find("GPU 0: NVDEC capacity now 60"), std::string::npos) << changed[0];
    advance(frames, 60, 1);
    changed = b.nvdec_sampled({{0, 0.8}}, frames, 6);
    EXPECT_NEAR(b.nvdec_capacity(0), 68, 1e-9);
    EXPECT_EQ(changed.size(), 1u) << "68 against 60";
    advance(frames, 60, 1);
    EXPECT_TRUE(b.nvdec_sampled({{0, 0.8}}, frames, 7).empty()) << "74.4 against 68: within a tenth";
    EXPECT_NEAR(b.nvdec_capacity(0), 74.4, 1e-9);
}

// A sample teaches nothing when NVDEC was nearly idle, when the streams on it changed since the
// last one, while one of them has not opened its input, is moving or its count went down (a new
// job), when its frames or NVDEC's busy moved by more than kNvdecSteady since the period before
// (streams starting or ending: NVML's period is not serve's), and never when --nvdec-capacity set
// the capacity (NVML's figure is still reported).
TEST(DecoderBalance, NvdecCapacityIsLearnedOnlyFromSettledSamples) {
    DecoderBalance b({true}, 16, {0});
    open_on_nvdec(b, 10, "s");
    auto frames = counters(10, "s");
    double t = 0;
    const auto sample = [&](double busy, int per_second = 30) {
        advance(frames, per_second, 1);
        return b.nvdec_sampled({{0, busy}}, frames, t++);
    };
    sample(0.05), sample(0.05), sample(0.05);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "5% busy: below kNvdecLearnBusy";
    // A stream placed between two samples: neither that period nor the next is learned from.
    b.place("late", 0);
    b.input_opened("late", 1, true, false, kFrame1080);
    frames["late"] = 0;
    sample(0.5), sample(0.5);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "the streams on NVDEC changed";
    // One not open yet: its frames' size is unknown.
    b.place("opening", 0);
    sample(0.5), sample(0.5), sample(0.5);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "a stream on NVDEC has not opened its input";
    b.release("opening");
    sample(0.5), sample(0.5);
    // A count that went down: that stream started a new job within the period.
    frames["s3"] = 0;
    sample(0.5);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default");
    sample(0.5);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "the period before was not known whole";
    // Streams ending: fewer frames than the period before, or NVDEC's busy falling behind.
    sample(0.5, 20);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "a third fewer frames than the period before";
    sample(0.3, 20);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "busy 30% after 50%";
    // Settled: 11 cameras at 20 fps (7.3 cameras' worth) keeping NVDEC 30% busy.
    sample(0.3, 20);
    EXPECT_EQ(b.nvdec_capacity_from(0), "measured");
    EXPECT_NEAR(b.nvdec_capacity(0), 11 * 20.0 / 30 / 0.3, 1e-9);

    DecoderBalance set({true, 30, 10}, 16, {0});
    for (int i = 0; i < 10; ++i) {
        set.place("s" + std::to_string(i), 0);
        set.input_opened("s" + std::to_string(i), 1, true, false, kFrame1080);
    }
    auto set_frames = counters(10, "s");
    for (int i = 0; i < 4; ++i) {
        advance(set_frames, 30, 1);
        EXPECT_TRUE(set.nvdec_sampled({{0, 0.5}}, set_frames, i).empty());
    }
    EXPECT_EQ(set.nvdec_capacity_from(0), "set");
    EXPECT_EQ(set.nvdec_capacity(0), 30);
    MetricSet m;
    set.collect_metrics(m);
    EXPECT_NE(m.text().find("vfilter_nvdec_busy_ratio{gpu=\"0\"} 0.5"), std::string::npos) << m.text();
    EXPECT_NE(m.text().find("vfilter_decoder_capacity_measured{decoder=\"nvdec\",gpu=\"0\"} 0"), std::string::npos) << m.text();
}

// A stream moving between decoders decodes on both within the period: not learned from until it
// has moved and two whole periods have passed.
TEST(DecoderBalance, NvdecCapacityIsNotLearnedWhileAStreamMoves) {
    DecoderBalance b({true}, 16, {0});
    b.place("c0", 0);
    b.input_opened("c0", 1, false, false, kFrame1080);  // decodes on the CPU
    open_on_nvdec(b, 2, "s");
    b.moving({"c0", true, "a test's move"});
    auto frames = counters(2, "s");
    frames["c0"] = 0;
    double t = 0;
    const auto sample = [&](double busy) {
        advance(frames, 30, 1);
        b.nvdec_sampled({{0, busy}}, frames, t++);
    };
    sample(0.2), sample(0.2), sample(0.2);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "c0 is moving to NVDEC";
    b.moved("c0", true);
    sample(0.3), sample(0.3);
    EXPECT_EQ(b.nvdec_capacity_from(0), "default") << "it moved within this period, or the one before";
    sample(0.3);
    EXPECT_EQ(b.nvdec_capacity_from(0), "measured");
    EXPECT_NEAR(b.nvdec_capacity(0), 10, 1e-9) << "3 cameras at 30% busy";
}

// Each GPU has its own capacity: with GPU 1's NVDEC measured small (busier for its streams:
// another process decoding there, or a smaller GPU), new streams go to GPU 0, whose NVDEC is
// less full for its capacity, and the metrics say which figure was measured.
TEST(DecoderBalance, EachGpuHasItsOwnMeasuredNvdecCapacity) {
    DecoderBalance b({true}, 32, {0, 1});
    open_on_nvdec(b, 10, "a", 0);
    open_on_nvdec(b, 10, "b", 1);
    std::map<std::string, int64_t> frames = counters(10, "a");
    for (const auto& [name, count] : counters(10, "b")) frames[name] = count;
    for (int t = 0; t < 3; ++t) {
        b.nvdec_sampled({{0, 0.06}, {1, 0.5}}, frames, t);
        advance(frames, 30, 1);
    }
    EXPECT_EQ(b.nvdec_capacity_from(0), "default");
    EXPECT_NEAR(b.nvdec_capacity(1), 20, 1e-9);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(b.place("n" + std::to_string(i), 1).gpu, 0) << i;
    MetricSet m;
    b.collect_metrics(m);
    for (const char* line : {"vfilter_decoder_capacity_streams{decoder=\"nvdec\",gpu=\"1\"} 20",
                             "vfilter_decoder_capacity_measured{decoder=\"nvdec\",gpu=\"1\"} 1",
                             "vfilter_decoder_capacity_measured{decoder=\"nvdec\",gpu=\"0\"} 0", "vfilter_nvdec_busy_ratio{gpu=\"1\"} 0.5"})
        EXPECT_NE(m.text().find(line), std::string::npos) << line << "\n" << m.text();
}

}  // namespace
}  // namespace vf
