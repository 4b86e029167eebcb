// The output encoder's packets with several readers (media/packet_tap.hpp): each gets every packet
// in order; one that never reads loses packets (told so) and never makes the output wait.
#include "media/packet_tap.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

namespace vf {
namespace {

using namespace std::chrono_literals;

AvPacketPtr numbered(int64_t n, int bytes) {
    AvPacketPtr p = make_packet();
    EXPECT_EQ(av_new_packet(p.get(), bytes), 0);
    p->pts = p->dts = n;
    return p;
}

TEST(PacketTap, OffersNothingWithoutReaders) {
    PacketTap tap;
    EXPECT_EQ(tap.readers(), 0);
    tap.offer(numbered(0, 10).get(), PacketTap::Clock::now());
    std::unique_ptr<PacketTap::Reader> r = tap.attach();
    bool lost = true;
    EXPECT_TRUE(r->take(0ms, &lost).empty()) << "a reader gets what is offered after it attached";
    EXPECT_FALSE(lost);
    r.reset();
    EXPECT_EQ(tap.readers(), 0);
}

TEST(PacketTap, ASlowReaderLosesPacketsAndNeverStallsTheOutputNorTheOtherReader) {
    PacketTap tap;
    std::unique_ptr<PacketTap::Reader> slow = tap.attach(), fast = tap.attach();
    EXPECT_EQ(tap.readers(), 2);
    constexpr int64_t kPackets = 20000;
    std::mt19937 random(7);
    std::uniform_int_distribution<int> size(1, 3000);
    std::atomic<bool> done{false};
    std::atomic<int64_t> consumed{0};
    std::vector<int64_t> got;
    std::thread reader([&] {
        bool lost = false;
        for (;;) {
            const bool last = done;
            for (PacketTap::Item& item : fast->take(10ms, &lost)) got.push_back(item.packet->pts);
            consumed = static_cast<int64_t>(got.size());
            EXPECT_FALSE(lost);
            if (last) break;
        }
    });
    const auto started = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration waited_for_fast{};
    for (int64_t n = 0; n < kPackets; ++n) {
        // The fast reader keeps up: the writer lets it (this wait is the test's, not the tap's).
        const auto wait_from = std::chrono::steady_clock::now();
        while (n - consumed > static_cast<int64_t>(PacketTap::kMaxQueued) / 2) std::this_thread::sleep_for(100us);
        waited_for_fast += std::chrono::steady_clock::now() - wait_from;
        tap.offer(numbered(n, size(random)).get(), PacketTap::Clock::now());
    }
    const auto took = std::chrono::steady_clock::now() - started - waited_for_fast;
    done = true;
    reader.join();
    EXPECT_LT(took, 10s) << "offering never waited for the reader that does not read";
    ASSERT_EQ(static_cast<int64_t>(got.size()), kPackets) << "the fast reader got every packet";
    for (int64_t n = 0; n < kPackets; ++n) ASSERT_EQ(got[n], n) << "in order";
    bool lost = false;
    const std::vector<PacketTap::Item> left = slow->take(0ms, &lost);
    EXPECT_TRUE(lost) << "the slow reader is told it lost packets";
    EXPECT_LE(left.size(), PacketTap::kMaxQueued);
    ASSERT_FALSE(left.empty());
    EXPECT_EQ(left.back().packet->pts, kPackets - 1) << "it goes on with the newest";
    for (size_t k = 1; k < left.size(); ++k) EXPECT_EQ(left[k].packet->pts, left[k - 1].packet->pts + 1);
}

TEST(PacketTap, AReaderQueueIsBoundedInBytes) {
    PacketTap tap;
    std::unique_ptr<PacketTap::Reader> r = tap.attach();
    const int big = static_cast<int>(PacketTap::kMaxQueuedBytes / 4) + 1;
    for (int n = 0; n < 4; ++n) tap.offer(numbered(n, big).get(), PacketTap::Clock::now());
    bool lost = false;
    const std::vector<PacketTap::Item> got = r->take(0ms, &lost);
    EXPECT_TRUE(lost);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].packet->pts, 3);
}

TEST(PacketTap, AReaderWaitingIsWokenWhenTheOutputCloses) {
    PacketTap tap;
    std::unique_ptr<PacketTap::Reader> r = tap.attach();
    std::thread closer([&] {
        std::this_thread::sleep_for(50ms);
        tap.close();
    });
    const auto started = std::chrono::steady_clock::now();
    bool lost = false;
    EXPECT_TRUE(r->take(10s, &lost).empty());
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    closer.join();
}

}  // namespace
}  // namespace vf
