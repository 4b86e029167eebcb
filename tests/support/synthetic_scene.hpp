// Synthetic camera footage for the picture-watch tests (tests/pipeline/watch/): a textured still
// scene, rendered at any time with sensor noise and a slow lighting wobble, and the changes a
// watched camera suffers (a black picture, a cover, a blur, a turn, a moving object, dusk,
// overexposure). Rendered straight at thumbnail size (cheap: an hour of measurements in seconds),
// or at full size for the path through make_luma_thumbnail.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/luma_thumbnail.hpp"

namespace vf::test {

// How the picture at one moment differs from the plain scene.
struct SceneLook {
    double gain = 1;          // light: 1 is the scene as made, below is darker, above overexposes
    int shift_x = 0;          // the view turned: columns moved left by this many (wrapping round)
    int blur_radius = 0;      // a box blur of this radius (a lens out of focus or fogged)
    bool covered = false;     // a near-uniform grey picture with a faint shading
    bool black = false;       // the picture gone black (noise only)
    int object_x = -1;        // a dark square (an object) at this column, -1 for none
    int object_y = 0, object_side = 0;
};

class SyntheticScene {
public:
    // A scene of width x height (the thumbnail's size, or the frame's), textured by `seed`. Noise:
    // the standard deviation of each sample's sensor noise, in 8-bit levels.
    SyntheticScene(int width, int height, unsigned seed, double noise);

    int width() const { return width_; }
    int height() const { return height_; }

    // The 8-bit picture with this look and fresh noise.
    std::vector<uint8_t> render(const SceneLook& look);
    LumaThumbnail render_thumbnail(const SceneLook& look);

    // A slow lighting wobble at `time`: a few percent over tens of seconds.
    static double wobble(double time);

private:
    int width_, height_;
    double noise_;
    std::vector<float> scene_;       // the reflectance, 8-bit levels at gain 1
    std::vector<float> noise_table_;  // gaussian values, read from a random offset each frame
    std::mt19937 rng_;
    int blurred_radius_ = 0;
    std::vector<float> blurred_;  // the scene box-blurred, cached for blurred_radius_
};

}  // namespace vf::test
