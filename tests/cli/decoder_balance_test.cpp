// DecoderBalance (app/serve/decoder_balance.hpp): where streams that may decode on NVDEC go. NVDEC takes
// every stream until it is half full, then both sides fill up together in proportion to their
// capacities; several GPUs share the NVDEC streams evenly; forced streams count where they
// decode; CPU encoders and NVDEC streams (by their decoder) take cores from the CPU decoders;
// streams beyond both are over capacity; a removed stream gives its place back.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/serve/decoder_balance.hpp"
#include "cli/decoder_balance_streams.hpp"

namespace vf {
namespace {

TEST(DecoderBalance, NvdecAloneUntilHalfFullThenBothInProportion) {
    // NVDEC 175; CPU (16 - 2 - 0.021 per NVDEC stream through vfilter's decoder) x 2.5
    DecoderBalance b({true}, 16, {0});
    const double feeder = kNvdecFeederCoresVfilter;
    EXPECT_EQ(on_nvdec(b, 87, "s", feeder), 87) << "NVDEC below half its capacity takes every stream";
    const int more = on_nvdec(b, 113, "t", feeder);  // 200 in all
    const int nvdec = 87 + more, cpu = 200 - nvdec;
    const double cpu_capacity = (14 - nvdec * feeder) * kCpuStreamsPerCore;
    EXPECT_NEAR(nvdec / kNvdecStreamsStartingEstimate, cpu / cpu_capacity, 0.05) << nvdec << " on NVDEC, " << cpu << " on the CPU";
    // The split measured to keep the most of 200 cameras at 30 fps on an H100's 16 cores: 175 and
    // 25 kept 198 (165 and 35 kept 136; 146 and 54 kept 116).
    EXPECT_NEAR(nvdec, 175, 2);
    const nlohmann::json left = b.capacity_left();
    EXPECT_EQ(left["total"].get<double>(),
              std::floor(std::max(0.0, kNvdecStreamsStartingEstimate - nvdec)) + std::floor(std::max(0.0, cpu_capacity - cpu)));
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
    EXPECT_NEAR(own_nvdec / kNvdecStreamsStartingEstimate, (200 - own_nvdec) / own_cpu_capacity, 0.05) << own_nvdec << " on NVDEC";
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
