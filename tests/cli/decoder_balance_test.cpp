// DecoderBalance (app/serve/decoder_balance.hpp): where streams that may decode on NVDEC go. NVDEC takes
// every stream until it is half full, then both sides fill up together in proportion to their
// capacities; several GPUs share the NVDEC streams evenly; forced streams count where they
// decode; CPU encoders and NVDEC streams (by their decoder) take cores from the CPU decoders;
// streams beyond both are over capacity; a removed stream gives its place back.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "app/serve/decoder_balance.hpp"
#include "media/frame.hpp"

namespace vf {
namespace {

int on_nvdec(DecoderBalance& b, int streams, const std::string& prefix = "s", double feeder_cores = kNvdecFeederCores) {
    int n = 0;
    for (int i = 0; i < streams; ++i) n += b.place(prefix + std::to_string(i), 0, 1, feeder_cores).nvdec;
    return n;
}

TEST(DecoderBalance, NvdecAloneUntilHalfFullThenBothInProportion) {
    // NVDEC 175; CPU (16 - 2 - 0.021 per NVDEC stream through vfilter's decoder) x 2.5
    DecoderBalance b({true}, 16, {0});
    const double feeder = kNvdecFeederCoresVfilter;
    EXPECT_EQ(on_nvdec(b, 87, "s", feeder), 87) << "NVDEC below half its capacity takes every stream";
    const int more = on_nvdec(b, 113, "t", feeder);  // 200 in all
    const int nvdec = 87 + more, cpu = 200 - nvdec;
    const double cpu_capacity = (14 - nvdec * feeder) * kCpuStreamsPerCore;
    EXPECT_NEAR(nvdec / kNvdecStreamsH100, cpu / cpu_capacity, 0.05) << nvdec << " on NVDEC, " << cpu << " on the CPU";
    // The split measured to keep the most of 200 cameras at 30 fps on an H100's 16 cores: 175 and
    // 25 kept 198 (165 and 35 kept 136; 146 and 54 kept 116).
    EXPECT_NEAR(nvdec, 175, 2);
    const nlohmann::json left = b.capacity_left();
    EXPECT_EQ(left["total"].get<double>(),
              std::floor(std::max(0.0, kNvdecStreamsH100 - nvdec)) + std::floor(std::max(0.0, cpu_capacity - cpu)));
    EXPECT_FALSE(b.placement("t0")->over_capacity);
    // Beyond both: still placed, on the less loaded side, and said so.
    on_nvdec(b, 30, "u", feeder);
    const DecoderPlacement over = *b.placement("u29");
    EXPECT_TRUE(over.over_capacity);
    EXPECT_NE(over.why.find("over capacity"), std::string::npos) << over.why;
    EXPECT_EQ(b.capacity_left()["total"], 0);
}

// Streams NVDEC did not take are counted on the CPU, which leaves the NVDECs' loads tied: the
// next stream then goes to the GPU the caller chose (the one with the fewest streams), not
// always the first.
TEST(DecoderBalance, OnATieTheCallersGpuIsKept) {
    DecoderBalance b({false}, 16, {0, 1});
    EXPECT_EQ(b.place("a", 1).gpu, 1);
    b.input_opened("a", 1, false);
    EXPECT_EQ(b.place("b", 1).gpu, 1) << "both NVDECs empty: the caller's GPU";
    EXPECT_EQ(b.place("c", 0).gpu, 0) << "GPU 1's NVDEC is busier now";
}

// --nvdec-share: a stream placed on NVDEC whose shared decoder is still to be made decodes on the
// CPU meanwhile (counted there, and said so), then moves by itself: counted on NVDEC again, one
// move, nothing over capacity.
TEST(DecoderBalance, AStreamWaitingForASharedDecoderCountsOnTheCpuUntilItMoves) {
    DecoderBalance b({false, 10, 1}, 16, {0});  // NVDEC 10 camera streams, CPU 1
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(b.place("w" + std::to_string(i), 0).nvdec);
    b.input_opened("w0", 1, true);
    b.input_opened("w1", 1, false, true);
    b.input_opened("w2", 1, false, true);
    const DecoderPlacement waiting = *b.placement("w1");
    EXPECT_FALSE(waiting.nvdec);
    EXPECT_NE(waiting.why.find("until a shared NVDEC decoder has room"), std::string::npos) << waiting.why;
    EXPECT_EQ(waiting.why.find("did not take it"), std::string::npos) << waiting.why;
    EXPECT_TRUE(b.placement("w2")->over_capacity) << "two on a CPU of one stream";
    b.moved("w1", true);
    b.moved("w2", true);
    for (const char* name : {"w1", "w2"}) {
        const DecoderPlacement moved = *b.placement(name);
        EXPECT_TRUE(moved.nvdec) << name;
        EXPECT_EQ(moved.moves, 1) << name;
        EXPECT_NE(moved.why.find("once a shared decoder had room"), std::string::npos) << moved.why;
        EXPECT_FALSE(moved.over_capacity) << name;
    }
    EXPECT_EQ(b.capacity_left()["total"].get<double>(), 7 + 1) << "3 of NVDEC's 10 used, the CPU's 1 free";
}

// Only as many streams wait on the CPU as its decoders carry (128 cameras on 16 cores all on the
// CPU starved the first decoder's creation): allowed ones count before their inputs open, then
// where they decode; a move to NVDEC or a removal gives the room back.
TEST(DecoderBalance, StreamsWaitOnTheCpuOnlyWithinItsCapacity) {
    DecoderBalance b({false, 10, 2}, 16, {0});  // NVDEC 10 camera streams, CPU 2
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(b.place("s" + std::to_string(i), 0).nvdec);
    EXPECT_TRUE(b.may_wait_on_cpu("s0"));
    EXPECT_TRUE(b.may_wait_on_cpu("s1"));
    EXPECT_FALSE(b.may_wait_on_cpu("s2")) << "two allowed, inputs not open yet: the CPU's 2 are taken";
    EXPECT_FALSE(b.may_wait_on_cpu("unknown"));
    b.input_opened("s0", 1, false, true);  // waits on the CPU: counted there now, not twice
    EXPECT_FALSE(b.may_wait_on_cpu("s3"));
    b.moved("s0", true);
    EXPECT_TRUE(b.may_wait_on_cpu("s3")) << "s0 moved to NVDEC: its room on the CPU is free";
    b.release("s1");
    EXPECT_TRUE(b.may_wait_on_cpu("s4")) << "s1 removed before its input opened";
    EXPECT_FALSE(b.may_wait_on_cpu("s5"));
    b.input_opened("s3", 1, true, false);  // its turn was ready at once: on NVDEC, nothing on the CPU
    EXPECT_TRUE(b.may_wait_on_cpu("s5"));
}

TEST(DecoderBalance, SeveralGpusShareTheNvdecStreams) {
    DecoderBalance b({true}, 16, {0, 1});
    int gpu1 = 0;
    for (int i = 0; i < 100; ++i) {
        const DecoderPlacement p = b.place("s" + std::to_string(i), 0);
        EXPECT_TRUE(p.nvdec) << i << ": two NVDECs below half their capacity";
        gpu1 += p.gpu == 1;
    }
    EXPECT_EQ(gpu1, 50);
}

TEST(DecoderBalance, ForcedStreamsEncodersAndRemovalsCount) {
    DecoderBalance b({true, 10, 10}, 16, {0});
    for (int i = 0; i < 5; ++i) b.count("forced" + std::to_string(i), true, 0, "hwdec: cuda in its entry");
    EXPECT_FALSE(b.place("a", 0).nvdec) << "NVDEC half full with the forced streams: the CPU is less loaded";
    EXPECT_EQ(b.placement("forced0")->why, "hwdec: cuda in its entry");
    EXPECT_FALSE(b.placement("forced0")->chosen);
    for (int i = 0; i < 5; ++i) b.release("forced" + std::to_string(i));
    EXPECT_TRUE(b.place("b", 0).nvdec);
    EXPECT_FALSE(b.placement("forced0"));
    // From the cores: two kept, one more for each CPU encoder, a share for each NVDEC stream.
    DecoderBalance cores({true}, 8, {0});
    EXPECT_NEAR(cores.capacity_left()["cpu"].get<double>(), std::floor(6 * kCpuStreamsPerCore), 1e-9);
    cores.encoder_started("x");
    cores.encoder_started("y");
    EXPECT_NEAR(cores.capacity_left()["cpu"].get<double>(), std::floor(4 * kCpuStreamsPerCore), 1e-9);
    cores.release("x");
    EXPECT_NEAR(cores.capacity_left()["cpu"].get<double>(), std::floor(5 * kCpuStreamsPerCore), 1e-9);
    for (int i = 0; i < 10; ++i) cores.count("nv" + std::to_string(i), true, 0, "hwdec: cuda in its entry");
    EXPECT_NEAR(cores.capacity_left()["cpu"].get<double>(), std::floor((5 - 10 * kNvdecFeederCores) * kCpuStreamsPerCore), 1e-9);
}

// vfilter's NVDEC decoder takes less CPU a stream than FFmpeg's: the CPU decoders are left more
// cores, so more of 200 cameras go to them; a removed stream gives its cores back.
TEST(DecoderBalance, TheNvdecStreamsCpuDependsOnTheirDecoder) {
    DecoderBalance ffmpeg({true}, 16, {0}), own({true}, 16, {0});
    int ffmpeg_nvdec = 0, own_nvdec = 0;
    for (int i = 0; i < 200; ++i) {
        ffmpeg_nvdec += ffmpeg.place("s" + std::to_string(i), 0, 1, kNvdecFeederCores).nvdec;
        own_nvdec += own.place("s" + std::to_string(i), 0, 1, kNvdecFeederCoresVfilter).nvdec;
    }
    EXPECT_LT(own_nvdec, ffmpeg_nvdec);
    const double own_cpu_capacity = (14 - own_nvdec * kNvdecFeederCoresVfilter) * kCpuStreamsPerCore;
    EXPECT_NEAR(own_nvdec / kNvdecStreamsH100, (200 - own_nvdec) / own_cpu_capacity, 0.05) << own_nvdec << " on NVDEC";
    DecoderBalance b({true}, 8, {0});
    b.count("nv", true, 0, "hwdec: cuda in its entry", 1, 1.0);
    EXPECT_NEAR(b.capacity_left()["cpu"].get<double>(), std::floor(5 * kCpuStreamsPerCore), 1e-9);
    b.release("nv");
    EXPECT_NEAR(b.capacity_left()["cpu"].get<double>(), std::floor(6 * kCpuStreamsPerCore), 1e-9);
}

// A stream counts by its pixels a second once its input says them: a 4K camera is four, a small
// one a tenth at least; the load it adds or frees shows in what is left, a stream that makes its
// side overfull is reported over capacity, and one NVDEC did not take counts on the CPU.
TEST(DecoderBalance, AStreamCountsByItsSizeOnceKnown) {
    EXPECT_DOUBLE_EQ(camera_streams(1920, 1080, 30), 1);
    EXPECT_DOUBLE_EQ(camera_streams(3840, 2160, 30), 4);
    EXPECT_DOUBLE_EQ(camera_streams(1920, 1080, 60), 2);
    EXPECT_NEAR(camera_streams(1280, 720, 30), 0.444, 0.001);
    EXPECT_DOUBLE_EQ(camera_streams(320, 240, 15), kLeastLoad);
    EXPECT_DOUBLE_EQ(camera_streams(1920, 1080, 0), 1) << "an unknown rate counts as 30";
    EXPECT_DOUBLE_EQ(camera_streams(0, 0, 30), 1) << "an unknown size counts as a camera";

    DecoderBalance b({true, 10, 10}, 16, {0});
    b.place("big", 0);
    b.place("small", 0);
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 8);
    b.input_opened("big", 4, true);
    b.input_opened("small", 0.5, true);
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 5) << "10 - 4 - 0.5";
    EXPECT_DOUBLE_EQ(b.placement("big")->load, 4);
    EXPECT_DOUBLE_EQ(b.placement("big")->describe()["load"].get<double>(), 4);
    EXPECT_FALSE(b.placement("big")->over_capacity);
    b.input_opened("big", 12, true);
    EXPECT_TRUE(b.placement("big")->over_capacity) << "its side is beyond its capacity now";
    b.release("big");
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 9) << "it gives back what it counted, not 1";
    b.input_opened("gone", 3, true);  // released or never placed: nothing changes
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 9);
    // Placed on NVDEC, decoded on the CPU (NVDEC cannot decode it): counted there, and said so.
    EXPECT_EQ(b.capacity_left()["cpu"], 10);
    b.input_opened("small", 2, false);
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 10);
    EXPECT_EQ(b.capacity_left()["cpu"], 8);
    EXPECT_FALSE(b.placement("small")->nvdec);
    EXPECT_NE(b.placement("small")->why.find("decodes on the CPU"), std::string::npos) << b.placement("small")->why;
    b.release("small");
    EXPECT_EQ(b.capacity_left()["cpu"], 10);
}

TEST(DecoderBalance, MetricsSayLoadCapacityAndWhatIsLeft) {
    DecoderBalance b({true, 20, 10}, 16, {0});
    on_nvdec(b, 12);
    MetricSet set;
    b.collect_metrics(set);
    const std::string text = set.text();
    for (const char* line : {"vfilter_decoder_capacity_streams{decoder=\"nvdec\",gpu=\"0\"} 20",
                             "vfilter_decoder_capacity_streams{decoder=\"cpu\"} 10", "vfilter_decoder_capacity_left_streams 18"})
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

TEST(DecoderBalance, TheDefaultKeepsEveryStreamOnNvdecAndCountsIt) {
    DecoderBalance b({false, 4, 4}, 16, {0});
    EXPECT_EQ(on_nvdec(b, 6), 6);
    EXPECT_TRUE(b.placement("s5")->over_capacity);
    EXPECT_NE(b.placement("s5")->why.find("--decoder-placement nvdec"), std::string::npos) << b.placement("s5")->why;
    EXPECT_EQ(b.capacity_left()["nvdec"]["0"], 0);
}

// Streams placed by load, 150 cameras: NVDEC and the CPU fill up together. Then 60 NVDEC streams
// leave: NVDEC is below half full, so the CPU's streams move to it, one at a time, each counted
// on its new side at once, until NVDEC is half full; nothing moves back. Streams whose input has
// not opened, forced ones and those NVDEC refused never move.
TEST(DecoderBalance, WhenNvdecEmptiesTheCpuStreamsMoveToIt) {
    DecoderBalance b({true}, 16, {0});
    std::vector<std::string> nv, cpu;
    for (int i = 0; i < 150; ++i) {
        const std::string name = "s" + std::to_string(i);
        const bool nvdec = b.place(name, 0, 1, kNvdecFeederCoresVfilter).nvdec;
        b.input_opened(name, 1, nvdec);
        (nvdec ? nv : cpu).push_back(name);
    }
    ASSERT_GE(cpu.size(), 10u);
    EXPECT_FALSE(b.next_move()) << "placed by load: already balanced";
    for (int i = 0; i < 60; ++i) b.release(nv[i]);
    int moved = 0;
    while (const auto m = b.next_move()) {
        ASSERT_TRUE(m->to_nvdec) << m->stream;
        ASSERT_FALSE(b.placement(m->stream)->nvdec);
        b.moving(*m);
        const DecoderPlacement p = *b.placement(m->stream);
        EXPECT_TRUE(p.nvdec && p.moving) << p.why;
        EXPECT_NE(p.why.find("moving to NVDEC"), std::string::npos) << p.why;
        b.moved(m->stream, true);
        EXPECT_FALSE(b.placement(m->stream)->moving);
        EXPECT_EQ(b.placement(m->stream)->moves, 1);
        ASSERT_LE(++moved, static_cast<int>(cpu.size()));
    }
    const int nvdec_after = static_cast<int>(nv.size()) - 60 + moved;
    EXPECT_EQ(moved, std::min<int>(static_cast<int>(cpu.size()), static_cast<int>(kNvdecStreamsH100 * kNvdecAlone) - (static_cast<int>(nv.size()) - 60)))
        << "to NVDEC until it is half full (" << nvdec_after << " there now)";
    EXPECT_FALSE(b.next_move()) << "a moved stream never has reason to move straight back";
    // NVDEC refusing a move: counted on the CPU again and not asked again.
    DecoderBalance r({true}, 16, {0});
    r.place("x", 0);
    r.input_opened("x", 1, true);
    r.place("y", 0, 1);
    r.input_opened("y", 1, true);
    r.release("x");
    EXPECT_FALSE(r.next_move()) << "both on NVDEC, NVDEC nearly idle: nothing to move";
}

// The reverse: NVDEC over full and the CPU nearly idle after the CPU's streams left: NVDEC's
// streams move to the CPU while the CPU stays kMoveMargin less full. A stream refused by NVDEC
// goes back to the CPU's count and is not moved again; one that cannot be asked is left out.
TEST(DecoderBalance, WhenTheCpuEmptiesNvdecStreamsMoveThereAndRefusalsStay) {
    DecoderCapacity c{true, 20, 10};  // NVDEC 20, CPU 10 camera streams
    DecoderBalance b(c, 16, {0});
    std::vector<std::string> nv, cpu;
    for (int i = 0; i < 30; ++i) {
        const std::string name = "s" + std::to_string(i);
        const bool nvdec = b.place(name, 0).nvdec;
        b.input_opened(name, 1, nvdec);
        (nvdec ? nv : cpu).push_back(name);
    }
    EXPECT_EQ(nv.size(), 20u);
    EXPECT_EQ(cpu.size(), 10u);
    for (const std::string& s : cpu) b.release(s);
    std::vector<std::string> moved;
    while (const auto m = b.next_move()) {
        ASSERT_FALSE(m->to_nvdec);
        b.moving(*m);
        b.moved(m->stream, false);
        moved.push_back(m->stream);
        ASSERT_LE(moved.size(), nv.size());
    }
    // NVDEC at 20 - k of 20, the CPU at k of 10: the last move leaves the CPU at most 0.25 below.
    const double k = static_cast<double>(moved.size());
    EXPECT_GE(k, 1);
    EXPECT_LE(k / 10 + kMoveMargin, (20 - k + 1) / 20 + 1e-9);
    EXPECT_GT((k + 1) / 10 + kMoveMargin, (20 - k) / 20) << "one more would have been worth it too";
    // A move NVDEC refuses.
    DecoderBalance r({true, 4, 10}, 16, {0});
    r.place("a", 0);
    r.input_opened("a", 1, true);
    r.place("b", 0);
    r.input_opened("b", 1, true);
    const bool b_on_nvdec = r.placement("b")->nvdec;
    r.place("c", 0);
    r.input_opened("c", 1, r.placement("c")->nvdec);
    const std::string on_cpu = b_on_nvdec ? "c" : "b";
    ASSERT_FALSE(r.placement(on_cpu)->nvdec);
    r.release("a");
    r.release(b_on_nvdec ? "b" : "c");
    const auto m = r.next_move();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->stream, on_cpu);
    r.moving(*m);
    r.moved(on_cpu, false);  // NVDEC would not take it
    EXPECT_FALSE(r.placement(on_cpu)->nvdec);
    EXPECT_NE(r.placement(on_cpu)->why.find("NVDEC did not take it"), std::string::npos);
    EXPECT_FALSE(r.next_move()) << "not asked again";
    EXPECT_EQ(r.capacity_left()["cpu"], 9);
    // One that cannot be asked (not running) is left out from then on.
    DecoderBalance q({true, 4, 10}, 16, {0});
    for (const char* s : {"a", "b", "c"}) {
        q.place(s, 0);
        q.input_opened(s, 1, q.placement(s)->nvdec);
    }
    q.release("a");
    const auto first = q.next_move();
    ASSERT_TRUE(first);
    q.cannot_move(first->stream);
    const auto second = q.next_move();
    EXPECT_TRUE(!second || second->stream != first->stream);
}

TEST(DecoderBalance, NothingMovesWithoutPlacementByLoad) {
    DecoderBalance b({false}, 16, {0});
    for (const char* s : {"a", "b"}) {
        b.place(s, 0);
        b.input_opened(s, 1, true);
    }
    b.release("a");
    EXPECT_FALSE(b.next_move());
}

}  // namespace
}  // namespace vf

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
