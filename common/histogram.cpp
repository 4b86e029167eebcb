#include "common/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace vf {

namespace {
constexpr double kHistMinMs = 1e-3, kHistStep = 1.02;
}

void DurationHistogram::add(double ms) {
    const double v = std::max(ms, kHistMinMs);
    const int b = std::min(kBuckets - 1, static_cast<int>(std::log(v / kHistMinMs) / std::log(kHistStep)));
    ++buckets_[b];
    ++count_;
    sum_ms_ += ms;
}

double DurationHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    const int64_t target = static_cast<int64_t>(p / 100.0 * static_cast<double>(count_ - 1)) + 1;
    int64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
        seen += buckets_[b];
        if (seen >= target) return kHistMinMs * std::pow(kHistStep, b + 0.5);
    }
    return kHistMinMs * std::pow(kHistStep, kBuckets);
}

}  // namespace vf
