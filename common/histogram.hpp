// A histogram of durations at fixed memory, for per-frame stage times and latency percentiles.
#pragma once

#include <cstdint>
#include <vector>

namespace vf {

// Durations from 1 us to 100 s in buckets 2% wide (log scale), for per-frame stage times and
// read-to-written latency: percentiles within 2% at fixed memory.
class DurationHistogram {
public:
    void add(double ms);
    double percentile(double p) const;
    double mean() const { return count_ ? sum_ms_ / static_cast<double>(count_) : 0; }
    double sum_ms() const { return sum_ms_; }
    int64_t count() const { return count_; }

private:
    static constexpr int kBuckets = 1000;
    std::vector<uint32_t> buckets_ = std::vector<uint32_t>(kBuckets, 0);
    int64_t count_ = 0;
    double sum_ms_ = 0;
};

}  // namespace vf
