// The decoder's frame buffers from a caller-chosen allocator, installed as get_buffer2. vfilter
// passes page-locked memory when the GPU filters, so a decoded frame is uploaded by DMA straight
// from the buffer the decoder wrote: no host copy between decoder and GPU. Thread-safe, as
// frame-threaded decoders call get_buffer2 from their worker threads. Laid out like FFmpeg's own
// default (avcodec_align_dimensions2, the decoder's stride alignment, padding after each plane).
#pragma once

#include <array>
#include <mutex>
#include <utility>

#include "media/av_helpers.hpp"
#include "media/frame_pool.hpp"
#include "media/host_memory.hpp"

namespace vf {

class DecoderBuffers {
public:
    explicit DecoderBuffers(BufferAllocator alloc) : alloc_(std::move(alloc)) {}
    ~DecoderBuffers();
    DecoderBuffers(const DecoderBuffers&) = delete;
    DecoderBuffers& operator=(const DecoderBuffers&) = delete;

    // Makes `decoder` take its video frames from here; must outlive the decoder's use of it
    // (frames still referenced after that free themselves).
    void install(AVCodecContext* decoder);

private:
    static int get_buffer2(AVCodecContext* c, AVFrame* f, int flags);
    int get(AVCodecContext* c, AVFrame* f);
    void reshape(AVCodecContext* c, const AVFrame* f);  // under mutex_

    BufferAllocator alloc_;
    std::mutex mutex_;
    int format_ = -1, width_ = 0, height_ = 0;
    std::array<int, 4> linesize_{};
    std::array<AVBufferPool*, 4> pools_{};
};

}  // namespace vf
