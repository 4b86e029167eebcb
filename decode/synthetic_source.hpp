// The built-in sources: moving test pictures (stripes and a bouncing disc, scrolling colour bars,
// a zooming checkerboard) with noise, so edges and blur are visible and nothing compresses
// trivially. With no --input: 1280x720 at 30 fps for 300 frames, read as fast as the pipeline
// takes them. As pattern://?size=...&rate=...&motion=...&seed=... (decode/pattern_url.hpp): live,
// paced at its rate like a camera, and endless.
#pragma once

#include <chrono>
#include <memory>

#include "decode/pattern_url.hpp"
#include "decode/source.hpp"
#include "media/frame_pool.hpp"

namespace vf {

class SyntheticSource : public Source {
public:
    SyntheticSource(int width = 1280, int height = 720, int fps = 30, int frames = 300,
                    AVPixelFormat format = AV_PIX_FMT_YUV420P, BufferAllocator alloc = nullptr);
    // A pattern:// input: live and endless.
    SyntheticSource(const PatternOptions& pattern, BufferAllocator alloc = nullptr);
    const VideoInfo& video() const override { return info_; }
    std::string describe() const override;
    std::optional<PipelineItem> read() override;
    bool live() const override { return live_; }

private:
    void draw(AVFrame* f, int t);
    // Live: waits until frame next_ is due (or stop), skipping frames a slow reader missed.
    void pace();
    // clock=wall: waits for the next frame due by the wall clock; its number.
    int64_t pace_by_wall_clock();
    void draw_number(AVFrame* f, int64_t n);

    VideoInfo info_;
    PatternMotion motion_ = PatternMotion::Ball;
    int frames_;                 // < 0: endless
    bool live_ = false;
    bool wall_clock_ = false;
    int64_t first_number_ = -1;  // clock=wall: the first frame's number (its pts is 0)
    std::chrono::steady_clock::time_point due_at_{};  // clock=wall: when the frame read last was due
    int phase_ = 0;              // from the seed: where the motion starts
    int64_t next_ = 0;
    uint32_t noise_ = 0x9E3779B9u;
    std::chrono::steady_clock::time_point start_{};
    FramePool pool_;
};

}  // namespace vf
