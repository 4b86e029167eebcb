// The built-in source used when no --input is given: a moving test pattern (stripes, a
// bouncing disc, a gradient) with noise, so edges and blur are visible and nothing compresses
// trivially.
#pragma once

#include <memory>

#include "decode/source.hpp"
#include "media/frame_pool.hpp"

namespace vf {

class SyntheticSource : public Source {
public:
    SyntheticSource(int width = 1280, int height = 720, int fps = 30, int frames = 300,
                    AVPixelFormat format = AV_PIX_FMT_YUV420P, BufferAllocator alloc = nullptr);
    const VideoInfo& video() const override { return info_; }
    std::string describe() const override;
    std::optional<PipelineItem> read() override;

private:
    VideoInfo info_;
    int frames_;
    int64_t next_ = 0;
    uint32_t noise_ = 0x9E3779B9u;
    FramePool pool_;
};

}  // namespace vf
