// Per-stream picture measures, computed from a luma thumbnail (kernels/luma_thumbnail.hpp) a few
// times a second; what the watcher (stream_watcher.hpp) turns into conditions. Pure computation:
// no clock, no threads, no GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/luma_thumbnail.hpp"

namespace vf::watch {

struct PictureMeasures {
    double sharpness = 0;    // variance of the 3x3 Laplacian over the thumbnail's inner samples
    double luma_mean = 0;    // 0..255
    double luma_spread = 0;  // the standard deviation of luma
    // Mean edge magnitude of the edge map over (luma mean + 1): how much structure the picture
    // holds, the same under brighter or darker light; near zero for a covered lens.
    double edge_strength = 0;
    // Against the previous measured thumbnail (absent for the first, or after a change of size):
    std::optional<double> difference;        // mean absolute difference, in 8-bit levels
    std::optional<double> changed_fraction;  // share of samples changed by more than the noise threshold
    // Against the learned reference view (absent until one is learned): -1..1.
    std::optional<double> edge_agreement;
};

// The edge map: gradient magnitudes of the thumbnail reduced once more by 2 x 2, inner samples
// only. The extra reduction keeps sensor noise and a soft focus from moving it much; a covered or
// turned camera moves it entirely.
struct EdgeMap {
    int width = 0, height = 0;
    std::vector<float> magnitude;
};

EdgeMap edge_map(const LumaThumbnail& t);
double laplacian_variance(const LumaThumbnail& t);
void luma_mean_and_spread(const LumaThumbnail& t, double& mean, double& spread);
double mean_edge_magnitude(const EdgeMap& e);
// Mean absolute difference of two thumbnails of one size.
double mean_absolute_difference(const LumaThumbnail& a, const LumaThumbnail& b);
// Share of samples whose change from `before` to `after`, less the change of the whole picture's
// mean (rounded), exceeds `noise_levels`: a light turned up or an exposure step moves every sample
// alike and is not motion.
double changed_fraction(const LumaThumbnail& before, const LumaThumbnail& after, int noise_levels);

// The reference edge map: the running average of the edge maps it is shown (over the calibration
// period), and how well a new edge map agrees with it.
//
// Agreement is the normalised (Pearson) correlation of the two magnitude maps. It is unchanged
// when light scales every gradient alike (dusk, a cloud, the exposure) and when luma shifts, and
// sensor noise lowers it only a little because the thumbnail has averaged most noise away. Both
// ways a view is lost drive it to zero: a cover removes the edges (what remains is noise,
// uncorrelated with the reference), a turned camera puts them elsewhere. The alternative, the
// share of the reference's strong edges still present, needs an absolute edge threshold, which
// light moves: dusk would read as a lost view.
class ReferenceEdges {
public:
    void learn(const EdgeMap& e);
    bool learned() const { return count_ > 0; }
    int maps_learned() const { return count_; }
    // -1..1; 0 where either map is flat, or the sizes differ.
    double agreement(const EdgeMap& e) const;
    void clear();

private:
    int width_ = 0, height_ = 0, count_ = 0;
    std::vector<double> sum_;
};

// One stream's measurer: keeps the previous measured thumbnail and the reference edge map.
class PictureMeasurer {
public:
    // Measures `t` against the previous thumbnail measured and the reference; `noise_levels` is
    // the change a sample may show without counting as changed (changed_fraction).
    PictureMeasures measure(const LumaThumbnail& t, int noise_levels);
    // Adds the edge map of the thumbnail measured last to the reference view.
    void learn_reference();
    const ReferenceEdges& reference() const { return reference_; }
    // Forgets the reference (to learn a new view) and the previous thumbnail.
    void reset();

private:
    LumaThumbnail previous_;
    bool has_previous_ = false;
    EdgeMap last_edges_;
    ReferenceEdges reference_;
};

}  // namespace vf::watch
