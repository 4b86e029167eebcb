// The duration histogram behind every latency and stage-time percentile: within its 2% buckets.
#include <gtest/gtest.h>

#include "common/histogram.hpp"

namespace vf {
namespace {

TEST(DurationHistogram, PercentilesWithinTwoPercent) {
    DurationHistogram h;
    for (int i = 1; i <= 1000; ++i) h.add(i * 0.01);  // 0.01 .. 10 ms
    EXPECT_EQ(h.count(), 1000);
    EXPECT_NEAR(h.mean(), 5.005, 1e-9);
    EXPECT_NEAR(h.percentile(50), 5.0, 5.0 * 0.021);
    EXPECT_NEAR(h.percentile(99), 9.9, 9.9 * 0.021);
    EXPECT_NEAR(h.percentile(100), 10.0, 10.0 * 0.021);
    DurationHistogram empty;
    EXPECT_EQ(empty.percentile(99), 0.0);
}

}  // namespace
}  // namespace vf
