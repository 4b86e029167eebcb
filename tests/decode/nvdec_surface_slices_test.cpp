#include "decode/nvdec_surface_slices.hpp"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace vf {
namespace {

TEST(NvdecSurfaceSlices, SlicesAreDisjointRunsAndComeBack) {
    NvdecSurfaceSlices s(32);
    EXPECT_EQ(s.take(11), 0);
    EXPECT_EQ(s.take(11), 11);
    EXPECT_EQ(s.take(11), -1) << "10 surfaces are left";
    EXPECT_EQ(s.take(10), 22);
    EXPECT_EQ(s.free(), 0);
    s.give_back(11, 11);
    EXPECT_EQ(s.slices(), 2);
    EXPECT_EQ(s.take(12), -1) << "the free run is 11 long";
    EXPECT_EQ(s.take(5), 11);
    EXPECT_EQ(s.take(6), 16);
    EXPECT_EQ(s.take(0), -1);
    EXPECT_EQ(NvdecSurfaceSlices(0).take(1), -1);
}

// Random takes and gives against a plain map of who owns each surface: no surface is ever owned
// twice, and every give-back frees exactly its run.
TEST(NvdecSurfaceSlices, RandomTakesNeverOverlap) {
    std::mt19937 rng(std::random_device{}());
    for (int round = 0; round < 200; ++round) {
        const int size = 1 + static_cast<int>(rng() % 40);
        NvdecSurfaceSlices s(size);
        std::vector<int> owner(static_cast<size_t>(size), -1);
        std::vector<std::pair<int, int>> held;
        for (int step = 0; step < 100; ++step) {
            if (!held.empty() && rng() % 2) {
                const size_t k = rng() % held.size();
                s.give_back(held[k].first, held[k].second);
                for (int i = held[k].first; i < held[k].first + held[k].second; ++i) owner[static_cast<size_t>(i)] = -1;
                held.erase(held.begin() + static_cast<long>(k));
            } else {
                const int count = 1 + static_cast<int>(rng() % 12);
                const int first = s.take(count);
                bool room = false;  // the plain answer: is there a free run of `count`?
                for (int i = 0, run = 0; i < size && !room; ++i) room = (run = owner[static_cast<size_t>(i)] < 0 ? run + 1 : 0) >= count;
                ASSERT_EQ(first >= 0, room) << "size " << size << " count " << count;
                if (first < 0) continue;
                for (int i = first; i < first + count; ++i) {
                    ASSERT_EQ(owner[static_cast<size_t>(i)], -1) << "surface " << i << " taken twice";
                    owner[static_cast<size_t>(i)] = step;
                }
                held.push_back({first, count});
            }
            ASSERT_EQ(s.slices(), static_cast<int>(held.size()));
            // room_for: as many as take() then gives, one after another (on a copy).
            const int count = 1 + static_cast<int>(rng() % 12);
            NvdecSurfaceSlices copy = s;
            int takes = 0;
            while (copy.take(count) >= 0) ++takes;
            ASSERT_EQ(s.room_for(count), takes) << "size " << size << " count " << count;
        }
    }
}

TEST(NvdecSurfaceSlices, RoomCountsWholeRunsOnly) {
    NvdecSurfaceSlices s(32);
    EXPECT_EQ(s.room_for(10), 3);
    EXPECT_EQ(s.take(10), 0);
    EXPECT_EQ(s.take(3), 10);
    EXPECT_EQ(s.room_for(10), 1) << "19 free in one run";
    s.give_back(0, 10);
    EXPECT_EQ(s.room_for(10), 2) << "10 free, then 19";
    EXPECT_EQ(s.room_for(11), 1);
    EXPECT_EQ(s.room_for(0), 0);
}

}  // namespace
}  // namespace vf
