// DecoderBalance (app/serve/decoder_balance.hpp): streams that move between NVDEC and the CPU decoders
// when one side empties, one at a time and never back; refusals and streams that cannot move stay.
#include <gtest/gtest.h>

#include <string>

#include "app/serve/decoder_balance.hpp"
#include "cli/decoder_balance_streams.hpp"

namespace vf {
namespace {

TEST(DecoderBalance, TheDefaultKeepsEveryStreamOnNvdecAndCountsIt) {
    DecoderBalance b({false, 4, 4}, 16, {0});
    EXPECT_EQ(on_nvdec(b, 6), 6);
    EXPECT_TRUE(b.placement("s5")->over_capacity);
    EXPECT_NE(b.placement("s5")->why.find("decoder-placement nvdec"), std::string::npos) << b.placement("s5")->why;
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
    EXPECT_EQ(moved, std::min<int>(static_cast<int>(cpu.size()), static_cast<int>(kNvdecStreamsStartingEstimate * kNvdecAlone) - (static_cast<int>(nv.size()) - 60)))
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
