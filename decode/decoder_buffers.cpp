#include "decode/decoder_buffers.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace vf {

DecoderBuffers::~DecoderBuffers() {
    for (auto*& p : pools_) av_buffer_pool_uninit(&p);  // buffers still in use free themselves later
}

void DecoderBuffers::install(AVCodecContext* decoder) {
    decoder->opaque = this;
    decoder->get_buffer2 = &DecoderBuffers::get_buffer2;
#if FF_API_THREAD_SAFE_CALLBACKS
    // FFmpeg 5.x requires thread-safe callbacks anyway; saying so silences its warning.
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
    decoder->thread_safe_callbacks = 1;
    _Pragma("GCC diagnostic pop")
#endif
}

int DecoderBuffers::get_buffer2(AVCodecContext* c, AVFrame* f, int flags) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(f->format));
    // Hardware frames, audio and decoders that cannot take caller buffers keep FFmpeg's own.
    if (c->codec_type != AVMEDIA_TYPE_VIDEO || !d || (d->flags & AV_PIX_FMT_FLAG_HWACCEL) ||
        !(c->codec->capabilities & AV_CODEC_CAP_DR1))
        return avcodec_default_get_buffer2(c, f, flags);
    return static_cast<DecoderBuffers*>(c->opaque)->get(c, f);
}

void DecoderBuffers::reshape(AVCodecContext* c, const AVFrame* f) {
    for (auto*& p : pools_) av_buffer_pool_uninit(&p);
    int w = f->width, h = f->height;
    int stride_align[AV_NUM_DATA_POINTERS];
    avcodec_align_dimensions2(c, &w, &h, stride_align);
    const auto fmt = static_cast<AVPixelFormat>(f->format);
    int linesize[4];
    for (;;) {  // widen until every plane's stride meets the decoder's alignment (as FFmpeg does)
        VF_AV_CHECK(av_image_fill_linesizes(linesize, fmt, w), ErrorCategory::Input, "decoder frame layout");
        bool aligned = true;
        for (int i = 0; i < 4; ++i) aligned &= stride_align[i] == 0 || linesize[i] % stride_align[i] == 0;
        if (aligned) break;
        w += w & ~(w - 1);
    }
    ptrdiff_t ls[4];
    for (int i = 0; i < 4; ++i) ls[i] = linesize[i];
    size_t sizes[4] = {0, 0, 0, 0};
    VF_AV_CHECK(av_image_fill_plane_sizes(sizes, fmt, h, ls), ErrorCategory::Input, "decoder frame layout");
    for (int i = 0; i < 4; ++i) {
        linesize_[i] = linesize[i];
        if (!sizes[i]) continue;
        pools_[i] = buffer_pool(sizes[i] + 16 + 64, &alloc_);  // FFmpeg's padding, generously aligned
        if (!pools_[i]) throw Error(ErrorCategory::Internal, "out of memory creating decoder frame buffers");
    }
    format_ = f->format;
    width_ = f->width;
    height_ = f->height;
}

int DecoderBuffers::get(AVCodecContext* c, AVFrame* f) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        if (f->format != format_ || f->width != width_ || f->height != height_) reshape(c, f);
    } catch (const Error&) {
        return AVERROR(ENOMEM);  // the decoder reports the failure; nothing may throw through FFmpeg
    }
    f->extended_data = f->data;
    for (int i = 0; i < 4; ++i) {
        f->data[i] = nullptr;
        f->linesize[i] = 0;
        if (!pools_[i]) continue;
        f->buf[i] = av_buffer_pool_get(pools_[i]);
        if (!f->buf[i]) {
            av_frame_unref(f);
            return AVERROR(ENOMEM);
        }
        f->data[i] = f->buf[i]->data;
        f->linesize[i] = linesize_[i];
    }
    return 0;
}

}  // namespace vf
