#include "pipeline/watch/picture_measures.hpp"

#include <cmath>
#include <cstdlib>

namespace vf::watch {

EdgeMap edge_map(const LumaThumbnail& t) {
    const int hw = t.width / 2, hh = t.height / 2;
    std::vector<float> half(static_cast<size_t>(hw) * hh);
    for (int y = 0; y < hh; ++y)
        for (int x = 0; x < hw; ++x)
            half[static_cast<size_t>(y) * hw + x] =
                0.25f * static_cast<float>(t.at(2 * x, 2 * y) + t.at(2 * x + 1, 2 * y) + t.at(2 * x, 2 * y + 1) +
                                           t.at(2 * x + 1, 2 * y + 1));
    EdgeMap e;
    if (hw < 3 || hh < 3) return e;
    e.width = hw - 2;
    e.height = hh - 2;
    e.magnitude.resize(static_cast<size_t>(e.width) * e.height);
    auto at = [&](int x, int y) { return half[static_cast<size_t>(y) * hw + x]; };
    for (int y = 1; y < hh - 1; ++y)
        for (int x = 1; x < hw - 1; ++x) {
            const float gx = at(x + 1, y) - at(x - 1, y), gy = at(x, y + 1) - at(x, y - 1);
            e.magnitude[static_cast<size_t>(y - 1) * e.width + (x - 1)] = std::sqrt(gx * gx + gy * gy);
        }
    return e;
}

double laplacian_variance(const LumaThumbnail& t) {
    if (t.width < 3 || t.height < 3) return 0;
    double sum = 0, sum_sq = 0;
    for (int y = 1; y < t.height - 1; ++y)
        for (int x = 1; x < t.width - 1; ++x) {
            const double l = t.at(x - 1, y) + t.at(x + 1, y) + t.at(x, y - 1) + t.at(x, y + 1) - 4.0 * t.at(x, y);
            sum += l;
            sum_sq += l * l;
        }
    const double n = static_cast<double>(t.width - 2) * (t.height - 2);
    const double mean = sum / n;
    return sum_sq / n - mean * mean;
}

void luma_mean_and_spread(const LumaThumbnail& t, double& mean, double& spread) {
    uint64_t sum = 0, sum_sq = 0;
    for (uint8_t v : t.samples) sum += v, sum_sq += static_cast<uint64_t>(v) * v;
    const double n = static_cast<double>(t.samples.size());
    mean = n > 0 ? static_cast<double>(sum) / n : 0;
    const double variance = n > 0 ? static_cast<double>(sum_sq) / n - mean * mean : 0;
    spread = variance > 0 ? std::sqrt(variance) : 0;
}

double mean_edge_magnitude(const EdgeMap& e) {
    if (e.magnitude.empty()) return 0;
    double sum = 0;
    for (float m : e.magnitude) sum += m;
    return sum / static_cast<double>(e.magnitude.size());
}

double mean_absolute_difference(const LumaThumbnail& a, const LumaThumbnail& b) {
    if (a.samples.empty() || a.samples.size() != b.samples.size()) return 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < a.samples.size(); ++i) sum += static_cast<uint64_t>(std::abs(a.samples[i] - b.samples[i]));
    return static_cast<double>(sum) / static_cast<double>(a.samples.size());
}

double changed_fraction(const LumaThumbnail& before, const LumaThumbnail& after, int noise_levels) {
    if (before.samples.empty() || before.samples.size() != after.samples.size()) return 0;
    int64_t shift = 0;
    for (size_t i = 0; i < before.samples.size(); ++i) shift += after.samples[i] - before.samples[i];
    const int64_t n = static_cast<int64_t>(before.samples.size());
    const int whole_picture = static_cast<int>(std::llround(static_cast<double>(shift) / static_cast<double>(n)));
    int64_t changed = 0;
    for (size_t i = 0; i < before.samples.size(); ++i)
        changed += std::abs(after.samples[i] - before.samples[i] - whole_picture) > noise_levels;
    return static_cast<double>(changed) / static_cast<double>(n);
}

void ReferenceEdges::learn(const EdgeMap& e) {
    if (e.magnitude.empty()) return;
    if (e.width != width_ || e.height != height_) {
        clear();
        width_ = e.width;
        height_ = e.height;
        sum_.assign(e.magnitude.size(), 0.0);
    }
    for (size_t i = 0; i < e.magnitude.size(); ++i) sum_[i] += e.magnitude[i];
    ++count_;
}

double ReferenceEdges::agreement(const EdgeMap& e) const {
    if (!count_ || e.width != width_ || e.height != height_) return 0;
    const double n = static_cast<double>(sum_.size());
    double mean_r = 0, mean_e = 0;
    for (size_t i = 0; i < sum_.size(); ++i) mean_r += sum_[i] / count_, mean_e += e.magnitude[i];
    mean_r /= n;
    mean_e /= n;
    double cov = 0, var_r = 0, var_e = 0;
    for (size_t i = 0; i < sum_.size(); ++i) {
        const double r = sum_[i] / count_ - mean_r, c = e.magnitude[i] - mean_e;
        cov += r * c;
        var_r += r * r;
        var_e += c * c;
    }
    if (var_r <= 0 || var_e <= 0) return 0;
    return cov / std::sqrt(var_r * var_e);
}

void ReferenceEdges::clear() {
    width_ = height_ = count_ = 0;
    sum_.clear();
}

PictureMeasures PictureMeasurer::measure(const LumaThumbnail& t, int noise_levels) {
    PictureMeasures m;
    m.sharpness = laplacian_variance(t);
    luma_mean_and_spread(t, m.luma_mean, m.luma_spread);
    last_edges_ = edge_map(t);
    m.edge_strength = mean_edge_magnitude(last_edges_) / (m.luma_mean + 1.0);
    if (has_previous_ && previous_.width == t.width && previous_.height == t.height) {
        m.difference = mean_absolute_difference(previous_, t);
        m.changed_fraction = changed_fraction(previous_, t, noise_levels);
    }
    if (reference_.learned()) m.edge_agreement = reference_.agreement(last_edges_);
    previous_ = t;
    has_previous_ = true;
    return m;
}

void PictureMeasurer::learn_reference() { reference_.learn(last_edges_); }

void PictureMeasurer::reset() {
    has_previous_ = false;
    reference_.clear();
}

}  // namespace vf::watch
