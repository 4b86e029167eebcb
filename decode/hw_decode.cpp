#include "decode/hw_decode.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#ifdef VF_HAVE_CUDA
#include <libavutil/hwcontext_cuda.h>
#endif
}

#ifdef VF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace vf {

AVPixelFormat nvdec_output_format(AVPixelFormat software) {
    switch (software) {
        case AV_PIX_FMT_YUV420P:
        case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_NV12;
        case AV_PIX_FMT_YUV420P10LE: return AV_PIX_FMT_P010LE;
        default: return AV_PIX_FMT_NONE;
    }
}

namespace {

// AV_CUDA_USE_PRIMARY_CONTEXT, from hwcontext_cuda.h, which needs the CUDA toolkit's cuda.h.
constexpr int kUsePrimaryContext = 1 << 0;

// Picks CUDA frames when the decoder offers them (it stops offering them when the stream's
// profile is one NVDEC cannot decode, and frames then come out in software).
AVPixelFormat pick_cuda(AVCodecContext*, const AVPixelFormat* offered) {
    for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p)
        if (*p == AV_PIX_FMT_CUDA) return *p;
    for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p) {
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(*p);
        if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
    }
    return AV_PIX_FMT_NONE;
}

}  // namespace

AVBufferRef* make_nvdec_device(int gpu_index, std::string* why) {
    AVBufferRef* device = nullptr;
    const std::string index = std::to_string(gpu_index);
    const int err = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_CUDA, index.c_str(), nullptr, kUsePrimaryContext);
    if (err < 0) {
        *why = "cannot open a CUDA device for NVDEC: " + av_error_string(err);
        return nullptr;
    }
#ifdef VF_HAVE_CUDA
    // A stream of its own for the decoder's frame mapping (FFmpeg's default, none, is the legacy
    // default stream, which every decoder of the context would share: one frame at a time across
    // all of them). The device context owns it: destroyed when the context goes.
    auto* dc = reinterpret_cast<AVHWDeviceContext*>(device->data);
    int current = -1;
    cudaGetDevice(&current);
    if (current != gpu_index) cudaSetDevice(gpu_index);  // its primary context exists now (above)
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess) {
        static_cast<AVCUDADeviceContext*>(dc->hwctx)->stream = stream;
        dc->user_opaque = stream;
        dc->free = [](AVHWDeviceContext* c) { cudaStreamDestroy(static_cast<cudaStream_t>(c->user_opaque)); };
    }
    if (current >= 0 && current != gpu_index) cudaSetDevice(current);
#endif
    return device;
}

CudaHandles cuda_handles_of(const AVBufferRef* device) {
#ifdef VF_HAVE_CUDA
    const auto* dc = reinterpret_cast<const AVHWDeviceContext*>(device->data);
    const auto* cuda = static_cast<const AVCUDADeviceContext*>(dc->hwctx);
    return {cuda->cuda_ctx, cuda->stream};
#else
    (void)device;
    return {};
#endif
}

bool enable_nvdec(AVCodecContext* decoder, int extra_frames, std::string* why, int gpu_index) {
    const AVCodec* codec = decoder->codec ? decoder->codec : avcodec_find_decoder(decoder->codec_id);
    bool has_cuda_config = false;
    for (int i = 0; codec; ++i) {
        const AVCodecHWConfig* c = avcodec_get_hw_config(codec, i);
        if (!c) break;
        if (c->device_type == AV_HWDEVICE_TYPE_CUDA && (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
            has_cuda_config = true;
    }
    if (!has_cuda_config) {
        *why = std::string("this FFmpeg has no NVDEC decoding for ") + avcodec_get_name(decoder->codec_id);
        return false;
    }
    AVBufferRef* device = make_nvdec_device(gpu_index, why);
    if (!device) return false;
    decoder->hw_device_ctx = device;  // the decoder owns the reference now
    decoder->get_format = pick_cuda;
    // Frames held by the queues and the GPU stage keep their decode surfaces mapped.
    decoder->extra_hw_frames = extra_frames;
    // NVDEC decodes; frame threads overlap the parsing and surface mapping of several frames,
    // at the price of one more surface each. 0 (automatic) means one.
    if (decoder->thread_count == 0) decoder->thread_count = 1;
    decoder->extra_hw_frames += decoder->thread_count - 1;
    return true;
}

void* nvdec_stream_of(const AVFrame* f) {
#ifdef VF_HAVE_CUDA
    if (f->format != AV_PIX_FMT_CUDA || !f->hw_frames_ctx) return nullptr;
    return cuda_handles_of(reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data)->device_ref).stream;
#else
    (void)f;
    return nullptr;
#endif
}

AVPixelFormat frame_layout_format(const AVFrame* f) {
    if (f->format == AV_PIX_FMT_CUDA && f->hw_frames_ctx)
        return reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data)->sw_format;
    return static_cast<AVPixelFormat>(f->format);
}

}  // namespace vf
