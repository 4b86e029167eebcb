// The pre-roll ring (media/packet_ring.hpp) under streams of packets of fresh random sizes and
// groups of pictures: it never holds more than its bytes, always begins with a keyframe, reaches
// back to the keyframe at or before (newest - keep) whenever its bytes allow, and hands out packets
// from the keyframe at or before the time asked.
#include "media/packet_ring.hpp"

#include <gtest/gtest.h>

#include <random>

namespace vf {
namespace {

using Clock = PacketRing::Clock;
using namespace std::chrono_literals;

PacketTap::Item packet_of(int bytes, bool key, Clock::time_point at) {
    AvPacketPtr p = make_packet();
    EXPECT_EQ(av_new_packet(p.get(), bytes), 0);
    if (key) p->flags |= AV_PKT_FLAG_KEY;
    return {std::move(p), at};
}

struct Case {
    unsigned seed;
    int gop;            // packets from one keyframe to the next
    int max_bytes;
    int max_packet;     // packets are 1..max_packet bytes
};

class PacketRingCases : public ::testing::TestWithParam<Case> {};

TEST_P(PacketRingCases, KeepsItsBoundsAndBeginsAtAKeyframe) {
    const Case c = GetParam();
    std::mt19937 random(c.seed);
    std::uniform_int_distribution<int> size(1, c.max_packet);
    const auto keep = 2s;
    PacketRing ring(keep, c.max_bytes);
    const Clock::time_point start = Clock::now();
    std::vector<std::pair<Clock::time_point, bool>> sent;  // every packet's time and keyframe flag
    std::vector<int> sizes;
    for (int i = 0; i < 600; ++i) {
        const Clock::time_point at = start + i * 33ms;
        const bool key = i % c.gop == 0;
        const int bytes = size(random);
        ring.push(packet_of(bytes, key, at));
        sent.emplace_back(at, key);
        sizes.push_back(bytes);
        ASSERT_LE(ring.bytes(), c.max_bytes) << "packet " << i;
        if (ring.empty()) continue;
        const std::vector<PacketTap::Item> all = ring.since(Clock::time_point::min());
        ASSERT_TRUE(all.front().packet->flags & AV_PKT_FLAG_KEY) << "packet " << i;
        ASSERT_EQ(all.back().read_at, at) << "the newest is kept";
        int64_t bytes_held = 0;
        for (const PacketTap::Item& item : all) bytes_held += item.packet->size;
        ASSERT_EQ(bytes_held, ring.bytes());
        // The keyframe at or before newest - keep, and what follows it, unless that is more bytes
        // than the bound.
        int wanted_from = -1;
        for (int k = i; k >= 0; --k)
            if (sent[k].second && sent[k].first <= at - keep) {
                wanted_from = k;
                break;
            }
        if (wanted_from < 0) continue;  // not yet that far in: it holds from the first keyframe
        int64_t wanted_bytes = 0;
        for (int k = wanted_from; k <= i; ++k) wanted_bytes += sizes[k];
        if (wanted_bytes <= c.max_bytes) {
            ASSERT_LE(ring.oldest(), sent[wanted_from].first) << "packet " << i;
        }
        // Nothing older than needed: the second keyframe held is after newest - keep.
        const PacketTap::Item* second = nullptr;
        for (size_t k = 1; k < all.size() && !second; ++k)
            if (all[k].packet->flags & AV_PKT_FLAG_KEY) second = &all[k];
        if (second) {
            ASSERT_GT(second->read_at, at - keep) << "packet " << i;
        }
    }
    // Asked from a time, it begins at the keyframe at or before it.
    if (!ring.empty()) {
        const Clock::time_point from = ring.newest() - 1s;
        const std::vector<PacketTap::Item> got = ring.since(from);
        ASSERT_FALSE(got.empty());
        EXPECT_TRUE(got.front().packet->flags & AV_PKT_FLAG_KEY);
        if (ring.oldest() <= from) {
            EXPECT_LE(got.front().read_at, from);
        }
        for (size_t k = 1; k < got.size(); ++k)
            if (got[k].packet->flags & AV_PKT_FLAG_KEY) {
                EXPECT_GT(got[k].read_at, from) << "no later keyframe at or before it";
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Streams, PacketRingCases,
                         ::testing::Values(Case{1, 30, 1 << 20, 4000}, Case{2, 7, 1 << 20, 9000}, Case{3, 61, 1 << 20, 100},
                                           Case{4, 30, 20000, 4000},  // the bytes bound wins
                                           Case{5, 1, 50000, 3000}, Case{6, 600, 1 << 22, 2000},
                                           Case{7, 45, 3000, 5000}));  // a group larger than the bound: empties

TEST(PacketRing, DropsWhatComesBeforeItsFirstKeyframeAndClears) {
    PacketRing ring(5s, 1 << 20);
    const Clock::time_point t = Clock::now();
    ring.push(packet_of(100, false, t));
    EXPECT_TRUE(ring.empty()) << "nothing could decode it";
    ring.push(packet_of(100, true, t + 1ms));
    ring.push(packet_of(50, false, t + 2ms));
    EXPECT_EQ(ring.size(), 2u);
    EXPECT_EQ(ring.bytes(), 150);
    EXPECT_EQ(ring.since(t - 1s).size(), 2u) << "from before the oldest: from the oldest keyframe";
    ring.clear();
    EXPECT_TRUE(ring.empty());
    EXPECT_EQ(ring.bytes(), 0);
    ring.push(packet_of(10, false, t + 3ms));
    EXPECT_TRUE(ring.empty());
}

}  // namespace
}  // namespace vf
