// Frames of one size and format whose buffers are recycled: a frame's memory goes back to the
// pool when the last reference to it is dropped (by whichever stage that is), so steady-state
// processing allocates nothing per frame.
#pragma once

#include <array>

#include "media/av_helpers.hpp"
#include "media/host_memory.hpp"

extern "C" {
#include <libavutil/buffer.h>
}

namespace vf {

class FramePool {
public:
    // alloc: where the buffers come from (empty: ordinary memory; a PageLockedStore's for
    // frames the GPU copies into).
    FramePool(int width, int height, AVPixelFormat format, BufferAllocator alloc = nullptr);
    ~FramePool();
    FramePool(const FramePool&) = delete;
    FramePool& operator=(const FramePool&) = delete;

    AvFramePtr get();  // uninitialised pixels; width, height and format set
    int width() const { return width_; }
    int height() const { return height_; }
    AVPixelFormat format() const { return format_; }

private:
    int width_, height_;
    AVPixelFormat format_;
    int planes_ = 0;
    std::array<int, 4> linesize_{};
    BufferAllocator alloc_;
    std::array<AVBufferPool*, 4> pools_{};
};

// A buffer pool of `size`-byte buffers from `*alloc` (FFmpeg's own when empty); `*alloc` must
// outlive the pool's use (av_buffer_pool_get), not its buffers.
AVBufferPool* buffer_pool(size_t size, BufferAllocator* alloc);

}  // namespace vf
