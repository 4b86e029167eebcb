#include "decode/synthetic_source.hpp"

#include <cmath>

#include "media/frame.hpp"

namespace vf {

SyntheticSource::SyntheticSource(int width, int height, int fps, int frames, AVPixelFormat format, BufferAllocator alloc)
    : frames_(frames), pool_(width, height, format, alloc) {
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
    const int scale = peak / 255;  // 1 for 8 bit, 4 for 10 bit
    // Luma: diagonal stripes moving right, a bright disc bouncing, a vertical gradient, noise.
    // Whole numbers and row pointers only: this source must stay far faster than any filter.
    const int cx = static_cast<int>((0.5 + 0.4 * std::sin(t * 0.07)) * info_.width);
    const int cy = static_cast<int>((0.5 + 0.4 * std::cos(t * 0.05)) * info_.height);
    const int radius = info_.height * 15 / 100, r2 = radius * radius;
    for (int y = 0; y < ch[0].height; ++y) {
        const int base = (y * 40) / info_.height, dy = y - cy;
        for (int x = 0; x < ch[0].width; ++x) {
            int v = (((x + y + 4 * t) / 24) & 1) ? 170 + base : 60 + base;
            const int dx = x - cx;
            if (dx * dx + dy * dy < r2) v = 235;
            noise_ ^= noise_ << 13;
            noise_ ^= noise_ >> 17;
            noise_ ^= noise_ << 5;
            v += static_cast<int>(noise_ % 17) - 8;
            v = v < 0 ? 0 : (v > 255 ? 255 : v);
            ch[0].write(x, y, v * scale);
        }
    }
    // Chroma: two slowly drifting triangle waves.
    for (size_t c = 1; c < ch.size(); ++c) {
        const int drift = c == 1 ? t : -t;
        for (int y = 0; y < ch[c].height; ++y)
            for (int x = 0; x < ch[c].width; ++x) {
                const int phase = ((x + drift) * 2 + y * static_cast<int>(c)) & 255;
                const int tri = phase < 128 ? phase : 255 - phase;  // 0..127
                ch[c].write(x, y, (128 - 50 + tri * 100 / 127) * scale);
            }
    }
    ++next_;
    return PipelineItem(std::move(vf));
}

}  // namespace vf
