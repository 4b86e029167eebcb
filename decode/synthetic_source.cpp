#include "decode/synthetic_source.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

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

SyntheticSource::SyntheticSource(const PatternOptions& p, BufferAllocator alloc)
    : SyntheticSource(p.width, p.height, p.rate, -1, AV_PIX_FMT_YUV420P, alloc) {
    motion_ = p.motion;
    live_ = true;
    wall_clock_ = p.wall_clock;
    phase_ = static_cast<int>(p.seed % 100000) * 97;
    noise_ ^= p.seed * 0x85EBCA6Bu;
    if (!noise_) noise_ = 1;
    info_.duration_s = 0;  // endless
    info_.expected_frames = 0;
}

std::string SyntheticSource::describe() const {
    const std::string size = std::to_string(info_.width) + "x" + std::to_string(info_.height) + "@" +
                             std::to_string(info_.frame_rate.num);
    if (live_) return std::string("built-in pattern '") + pattern_motion_name(motion_) + "' " + size + ", live, endless";
    return "built-in test pattern " + size + " for " + std::to_string(frames_) + " frames";
}

void SyntheticSource::pace() {
    const auto now = std::chrono::steady_clock::now();
    if (next_ == 0) start_ = now;
    const auto period = std::chrono::duration<double>(1.0 / info_.frame_rate.num);
    // A camera does not wait for a slow reader: the frames it missed are gone (the pts jump).
    const int64_t due = static_cast<int64_t>((now - start_) / period);
    if (next_ < due - 1) next_ = due;
    const auto at = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(period * static_cast<double>(next_));
    while (!stop_requested_ && std::chrono::steady_clock::now() < at)
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(at - std::chrono::steady_clock::now(),
                                                                                 std::chrono::milliseconds(50)));
}

int64_t SyntheticSource::pace_by_wall_clock() {
    using namespace std::chrono;
    const int rate = info_.frame_rate.num;
    // Frame N is taken half a frame after N/rate: a moment on the whole second, where a hand-over
    // cuts, then falls between two frames rather than on one.
    const auto number_now = [rate] { return (duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() * rate - 500000) / 1000000; };
    // The frame after the last one given, or the one due now when the reader fell behind.
    int64_t n = first_number_ < 0 ? number_now() + 1 : std::max(first_number_ + next_, number_now());
    while (!stop_requested_ && number_now() < n) std::this_thread::sleep_for(milliseconds(2));
    if (first_number_ < 0) first_number_ = n;
    next_ = n - first_number_;
    // The frame was "taken" when it was due, however late this reader came for it: so do two
    // processes reading this camera agree on each frame's moment (a hand-over's cut).
    const int64_t late_us = duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() - (n * 1000000 + 500000) / rate;
    due_at_ = steady_clock::now() - microseconds(std::max<int64_t>(0, late_us));
    return n;
}

void SyntheticSource::draw_number(AVFrame* f, int64_t n) {
    const std::vector<PlaneView> ch = channel_views(f);
    const int block = info_.width / kPatternStripBits, rows = pattern_strip_height(info_.height);
    const int scale = ch[0].peak() / 255;
    for (int y = 0; y < rows; ++y)
        for (int i = 0; i < kPatternStripBits; ++i) {
            const int v = (n >> i) & 1 ? 235 : 16;
            for (int x = i * block; x < (i + 1) * block; ++x) ch[0].write(x, y, v * scale);
        }
}

std::optional<PipelineItem> SyntheticSource::read() {
    if (stop_requested_ || (frames_ >= 0 && next_ >= frames_)) return std::nullopt;
    const int64_t number = wall_clock_ ? pace_by_wall_clock() : 0;
    if (live_ && !wall_clock_) pace();
    if (stop_requested_) return std::nullopt;
    VideoFrame vf;
    vf.frame = pool_.get();
    vf.index = next_;
    vf.read_at = wall_clock_ ? due_at_ : Clock::now();
    AVFrame* f = vf.frame.get();
    f->pts = next_;
    f->color_range = info_.color_range;
    f->colorspace = info_.colorspace;
    f->color_primaries = info_.color_primaries;
    f->color_trc = info_.color_trc;
    f->sample_aspect_ratio = info_.sample_aspect_ratio;
    draw(f, static_cast<int>((wall_clock_ ? number : next_) % 1000000) + phase_);
    if (wall_clock_) draw_number(f, number);
    ++next_;
    return PipelineItem(std::move(vf));
}

void SyntheticSource::draw(AVFrame* f, int t) {
    const std::vector<PlaneView> ch = channel_views(f);
    const int peak = ch[0].peak();
    const int scale = peak / 255;  // 1 for 8 bit, 4 for 10 bit
    const int w = info_.width, h = info_.height;
    auto noisy = [this](int v) {
        noise_ ^= noise_ << 13;
        noise_ ^= noise_ >> 17;
        noise_ ^= noise_ << 5;
        v += static_cast<int>(noise_ % 17) - 8;
        return v < 0 ? 0 : (v > 255 ? 255 : v);
    };
    // Whole numbers and row pointers only: this source must stay far faster than any filter.
    if (motion_ == PatternMotion::Bars) {
        // Eight colour bars scrolling left, a bright band sweeping down.
        static const int kLuma[8] = {235, 210, 170, 145, 106, 81, 41, 16};
        static const int kU[8] = {128, 16, 166, 54, 202, 90, 240, 128}, kV[8] = {128, 146, 16, 34, 222, 240, 110, 128};
        const int band = (t * 3) % (h + h / 4) - h / 8, bar_w = std::max(1, w / 8);
        for (int y = 0; y < ch[0].height; ++y) {
            const bool in_band = y >= band && y < band + h / 8;
            for (int x = 0; x < ch[0].width; ++x) {
                const int bar = ((x + 4 * t) / bar_w) & 7;
                ch[0].write(x, y, noisy(in_band ? 250 - kLuma[bar] / 4 : kLuma[bar]) * scale);
            }
        }
        for (size_t c = 1; c < ch.size(); ++c) {
            const int* table = c == 1 ? kU : kV;
            const int cw = std::max(1, bar_w * ch[c].width / w);
            for (int y = 0; y < ch[c].height; ++y)
                for (int x = 0; x < ch[c].width; ++x) ch[c].write(x, y, table[((x + 4 * t * ch[c].width / w) / cw) & 7] * scale);
        }
        return;
    }
    if (motion_ == PatternMotion::Checker) {
        // A checkerboard whose squares grow and shrink, drifting diagonally.
        const int cell = h / 12 + static_cast<int>((h / 16) * (1 + std::sin(t * 0.04)));
        const int ox = 2 * t, oy = t;
        for (int y = 0; y < ch[0].height; ++y)
            for (int x = 0; x < ch[0].width; ++x)
                ch[0].write(x, y, noisy((((x + ox) / cell + (y + oy) / cell) & 1) ? 200 : 50) * scale);
        for (size_t c = 1; c < ch.size(); ++c) {
            const int sx = w / std::max(1, ch[c].width), sy = h / std::max(1, ch[c].height);
            for (int y = 0; y < ch[c].height; ++y)
                for (int x = 0; x < ch[c].width; ++x) {
                    const bool right = x * sx > w / 2, bottom = y * sy > h / 2;
                    const int v = c == 1 ? (right ? 170 : 90) : (bottom ? 180 : 80);
                    ch[c].write(x, y, v * scale);
                }
        }
        return;
    }
    // Ball: diagonal stripes moving right, a bright disc bouncing, a vertical gradient, noise.
    const int cx = static_cast<int>((0.5 + 0.4 * std::sin(t * 0.07)) * w);
    const int cy = static_cast<int>((0.5 + 0.4 * std::cos(t * 0.05)) * h);
    const int radius = h * 15 / 100, r2 = radius * radius;
    for (int y = 0; y < ch[0].height; ++y) {
        const int base = (y * 40) / h, dy = y - cy;
        for (int x = 0; x < ch[0].width; ++x) {
            int v = (((x + y + 4 * t) / 24) & 1) ? 170 + base : 60 + base;
            const int dx = x - cx;
            if (dx * dx + dy * dy < r2) v = 235;
            ch[0].write(x, y, noisy(v) * scale);
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
}

}  // namespace vf
