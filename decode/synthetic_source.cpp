#include "decode/synthetic_source.hpp"

#include <cmath>

#include "pipeline/frame.hpp"

namespace vf {

SyntheticSource::SyntheticSource(int width, int height, int fps, int frames, AVPixelFormat format)
    : frames_(frames), pool_(width, height, format) {
    info_.width = width;
    info_.height = height;
    info_.format = format;
    info_.time_base = {1, fps};
    info_.frame_rate = {fps, 1};
    info_.sample_aspect_ratio = {1, 1};
    info_.color_range = AVCOL_RANGE_MPEG;
    info_.colorspace = AVCOL_SPC_BT709;
    info_.color_primaries = AVCOL_PRI_BT709;
    info_.color_trc = AVCOL_TRC_BT709;
    info_.duration_s = static_cast<double>(frames) / fps;
    info_.expected_frames = frames;
}

std::string SyntheticSource::describe() const {
    return "built-in test pattern " + std::to_string(info_.width) + "x" + std::to_string(info_.height) + "@" +
           std::to_string(info_.frame_rate.num) + " for " + std::to_string(frames_) + " frames";
}

std::optional<PipelineItem> SyntheticSource::read() {
    if (stop_requested_ || next_ >= frames_) return std::nullopt;
    VideoFrame vf;
    vf.frame = pool_.get();
    vf.index = next_;
    vf.read_at = Clock::now();
    AVFrame* f = vf.frame.get();
    f->pts = next_;
    f->color_range = info_.color_range;
    f->colorspace = info_.colorspace;
    f->color_primaries = info_.color_primaries;
    f->color_trc = info_.color_trc;
    f->sample_aspect_ratio = info_.sample_aspect_ratio;
    const int t = static_cast<int>(next_);
    const std::vector<PlaneView> ch = channel_views(f);
    const int peak = ch[0].peak();
    const double scale = peak / 255.0;
    // Luma: diagonal stripes moving right, a bright disc bouncing, a vertical gradient, noise.
    const double cx = (0.5 + 0.4 * std::sin(t * 0.07)) * info_.width;
    const double cy = (0.5 + 0.4 * std::cos(t * 0.05)) * info_.height;
    const double r2 = std::pow(info_.height * 0.15, 2);
    for (int y = 0; y < ch[0].height; ++y) {
        for (int x = 0; x < ch[0].width; ++x) {
            int v = ((x + y + 4 * t) / 24) % 2 ? 170 : 60;
            v += (y * 40) / info_.height;
            const double dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy < r2) v = 235;
            noise_ ^= noise_ << 13;
            noise_ ^= noise_ >> 17;
            noise_ ^= noise_ << 5;
            v += static_cast<int>(noise_ % 17) - 8;
            v = v < 0 ? 0 : (v > 255 ? 255 : v);
            ch[0].write(x, y, static_cast<int>(v * scale));
        }
    }
    for (size_t c = 1; c < ch.size(); ++c) {
        for (int y = 0; y < ch[c].height; ++y)
            for (int x = 0; x < ch[c].width; ++x) {
                const int v = 128 + static_cast<int>(50 * std::sin((x + (c == 1 ? t : -t)) * 0.02 + y * 0.01 * c));
                ch[c].write(x, y, static_cast<int>(v * scale));
            }
    }
    ++next_;
    return PipelineItem(std::move(vf));
}

}  // namespace vf
