#include "media/frame_pool.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace vf {

AVBufferPool* buffer_pool(size_t size, BufferAllocator* alloc) {
    if (!*alloc) return av_buffer_pool_init(size, nullptr);
    // The allocator lives in its owner (a FramePool, DecoderBuffers), which uninits the pool
    // before it goes: the pool calls it only from av_buffer_pool_get.
    // Called from inside FFmpeg: nothing may be thrown through it; a failure is FFmpeg's ENOMEM.
    return av_buffer_pool_init2(
        size, alloc,
        [](void* opaque, size_t bytes) -> AVBufferRef* {
            try {
                return (*static_cast<BufferAllocator*>(opaque))(bytes);
            } catch (...) {
                return nullptr;
            }
        },
        nullptr);
}

FramePool::FramePool(int width, int height, AVPixelFormat format, BufferAllocator alloc)
    : width_(width), height_(height), format_(format), alloc_(std::move(alloc)) {
    // 64-byte aligned rows: whole cache lines, and room for the widest SIMD loads.
    VF_AV_CHECK(av_image_fill_linesizes(linesize_.data(), format, FFALIGN(width, 64)), ErrorCategory::Internal,
                "frame layout");
    ptrdiff_t linesizes[4];
    for (int i = 0; i < 4; ++i) linesizes[i] = linesize_[i];
    size_t sizes[4] = {0, 0, 0, 0};
    VF_AV_CHECK(av_image_fill_plane_sizes(sizes, format, height, linesizes), ErrorCategory::Internal, "frame layout");
    for (int i = 0; i < 4 && sizes[i]; ++i) {
        pools_[i] = buffer_pool(sizes[i] + 64, &alloc_);
        if (!pools_[i]) throw Error(ErrorCategory::Internal, "out of memory creating a frame pool");
        planes_ = i + 1;
    }
}

FramePool::~FramePool() {
    for (auto*& p : pools_) av_buffer_pool_uninit(&p);  // buffers still in use free themselves later
}

AvFramePtr FramePool::get() {
    AvFramePtr f = make_frame();
    f->width = width_;
    f->height = height_;
    f->format = format_;
    for (int i = 0; i < planes_; ++i) {
        f->buf[i] = av_buffer_pool_get(pools_[i]);
        if (!f->buf[i]) throw Error(ErrorCategory::Internal, "out of memory getting a frame buffer");
        f->data[i] = f->buf[i]->data;
        f->linesize[i] = linesize_[i];
    }
    return f;
}

}  // namespace vf
