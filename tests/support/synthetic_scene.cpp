#include "support/synthetic_scene.hpp"

#include <algorithm>
#include <cmath>

namespace vf::test {
namespace {

// A separable box blur of radius r, the edges replicated.
std::vector<float> box_blur(const std::vector<float>& src, int w, int h, int r) {
    std::vector<float> rows(src.size()), out(src.size());
    const float norm = 1.0f / static_cast<float>(2 * r + 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float sum = 0;
            for (int d = -r; d <= r; ++d) sum += src[static_cast<size_t>(y) * w + std::clamp(x + d, 0, w - 1)];
            rows[static_cast<size_t>(y) * w + x] = sum * norm;
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float sum = 0;
            for (int d = -r; d <= r; ++d) sum += rows[static_cast<size_t>(std::clamp(y + d, 0, h - 1)) * w + x];
            out[static_cast<size_t>(y) * w + x] = sum * norm;
        }
    return out;
}

}  // namespace

SyntheticScene::SyntheticScene(int width, int height, unsigned seed, double noise)
    : width_(width), height_(height), noise_(noise), scene_(static_cast<size_t>(width) * height), rng_(seed) {
    // Rectangles of many sizes and levels over a mid-grey ground, and a fine texture on top: edges
    // at every scale, as a street or a room has.
    std::fill(scene_.begin(), scene_.end(), 110.0f);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < 160; ++i) {
        const int rw = static_cast<int>(width * (0.02 + 0.2 * unit(rng_))), rh = static_cast<int>(height * (0.02 + 0.25 * unit(rng_)));
        const int x0 = static_cast<int>((width - rw) * unit(rng_)), y0 = static_cast<int>((height - rh) * unit(rng_));
        const float level = static_cast<float>(40 + 150 * unit(rng_));
        for (int y = y0; y < y0 + rh; ++y)
            for (int x = x0; x < x0 + rw; ++x) scene_[static_cast<size_t>(y) * width + x] = level;
    }
    std::normal_distribution<float> texture(0, 6);
    for (float& v : scene_) v += texture(rng_);
    std::normal_distribution<float> gauss(0, static_cast<float>(noise));
    noise_table_.resize(static_cast<size_t>(width) * height + 65536);
    for (float& v : noise_table_) v = gauss(rng_);
}

double SyntheticScene::wobble(double time) { return 1.0 + 0.04 * std::sin(time * 2 * M_PI / 23.0) + 0.02 * std::sin(time * 2 * M_PI / 7.0); }

std::vector<uint8_t> SyntheticScene::render(const SceneLook& look) {
    if (look.blur_radius > 0 && look.blur_radius != blurred_radius_) {
        blurred_ = box_blur(scene_, width_, height_, look.blur_radius);
        blurred_radius_ = look.blur_radius;
    }
    const std::vector<float>& src = look.blur_radius > 0 ? blurred_ : scene_;
    const size_t offset = std::uniform_int_distribution<size_t>(0, 65535)(rng_);
    const float* noise = noise_table_.data() + offset;
    std::vector<uint8_t> out(scene_.size());
    for (int y = 0; y < height_; ++y)
        for (int x = 0; x < width_; ++x) {
            const size_t i = static_cast<size_t>(y) * width_ + x;
            float v;
            if (look.black) v = 2.0f;
            else if (look.covered) v = 128.0f + 6.0f * static_cast<float>(x) / static_cast<float>(width_);
            else v = static_cast<float>(look.gain) * src[static_cast<size_t>(y) * width_ + (x + look.shift_x) % width_];
            if (look.object_x >= 0 && x >= look.object_x && x < look.object_x + look.object_side && y >= look.object_y &&
                y < look.object_y + look.object_side)
                v = 20.0f * static_cast<float>(look.gain);
            v += noise[i];
            out[i] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
        }
    return out;
}

LumaThumbnail SyntheticScene::render_thumbnail(const SceneLook& look) {
    LumaThumbnail t;
    t.width = width_;
    t.height = height_;
    t.samples = render(look);
    return t;
}

}  // namespace vf::test
