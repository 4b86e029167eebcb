#include "app/serve/watch/frame_thumbnail.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/gpu_runtime.hpp"
#ifdef VF_HAVE_CUDA
#include "decode/hw_decode.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/luma_thumbnail.hpp"
#endif

namespace vf {

namespace {

// The luma plane of a pixel format: YUV (planar or semi-planar) or grey, luma first, 8..16 bits.
bool luma_plane_of(AVPixelFormat format, PlaneView& view) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_PAL)))
        return false;
    const AVComponentDescriptor& y = d->comp[0];
    if (y.plane != 0 || y.depth < 8 || y.depth > 16) return false;
    view.bytes_per_sample = y.depth > 8 ? 2 : 1;
    view.step = y.step / view.bytes_per_sample;
    view.depth = y.depth;
    view.shift = y.shift;
    return view.step >= 1;
}

}  // namespace

std::optional<PlaneView> host_luma_view(const AVFrame& frame) {
    PlaneView view;
    if (!luma_plane_of(static_cast<AVPixelFormat>(frame.format), view) || !frame.data[0] || frame.width < 1 || frame.height < 1)
        return std::nullopt;
    view.data = frame.data[0];
    view.pitch = frame.linesize[0];
    view.width = frame.width;
    view.height = frame.height;
    return view;
}

#ifdef VF_HAVE_CUDA
// One stream's GPU thumbnail: its buffers (remade when the size changes), its CUDA stream, and
// the frame held until the kernel read it.
struct FrameThumbnailer::Gpu {
    std::unique_ptr<cuda::GpuLumaThumbnail> thumbnail;
    std::unique_ptr<cuda::Stream> stream;
    std::unique_ptr<cuda::Event> decoded;
    AvFramePtr frame;
};

bool FrameThumbnailer::start_on_gpu(AvFramePtr frame) {
    if (!runtime_ || !frame->hw_frames_ctx) return false;
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame->hw_frames_ctx->data);
    PlaneView view;
    if (!luma_plane_of(frames->sw_format, view)) return false;
    view.data = frame->data[0];
    view.pitch = frame->linesize[0];
    view.width = frame->width;
    view.height = frame->height;
    const std::shared_ptr<GpuDevice> device = runtime_->device(gpu_);
    const cuda::DeviceGuard current(gpu_);
    if (!cuda_) cuda_ = std::make_unique<Gpu>();
    const cuda::GpuLumaThumbnail* t = cuda_->thumbnail.get();
    if (!t || t->shape().width != thumbnail_shape(view.width, view.height).width ||
        t->shape().height != thumbnail_shape(view.width, view.height).height)
        cuda_->thumbnail = std::make_unique<cuda::GpuLumaThumbnail>(*device->context(), view.width, view.height);
    if (!cuda_->stream) {
        cuda_->stream = std::make_unique<cuda::Stream>();
        cuda_->decoded = std::make_unique<cuda::Event>(cudaEventDisableTiming);
    }
    // NVDEC maps the frame on its decoder's stream: the kernel reads it after that.
    VF_CUDA_CHECK(cudaEventRecord(cuda_->decoded->get(), static_cast<cudaStream_t>(nvdec_stream_of(frame.get()))));
    VF_CUDA_CHECK(cudaStreamWaitEvent(cuda_->stream->get(), cuda_->decoded->get(), 0));
    cuda_->thumbnail->make(view, cuda_->stream->get());
    cuda_->frame = std::move(frame);
    pending_ = true;
    return true;
}
#endif

FrameThumbnailer::FrameThumbnailer(std::shared_ptr<GpuRuntime> runtime, int gpu) : runtime_(std::move(runtime)), gpu_(gpu) {}

FrameThumbnailer::~FrameThumbnailer() {
#ifdef VF_HAVE_CUDA
    if (cuda_ && pending_) cuda_->thumbnail->wait();  // the kernel still reads the frame and writes the buffers
#endif
}

bool FrameThumbnailer::start(AvFramePtr frame) {
    if (!frame || busy()) return false;
    if (frame->format == AV_PIX_FMT_CUDA) {
#ifdef VF_HAVE_CUDA
        return start_on_gpu(std::move(frame));
#else
        return false;
#endif
    }
    const std::optional<PlaneView> luma = host_luma_view(*frame);
    if (!luma) return false;
    ready_ = make_luma_thumbnail(*luma);
    return true;
}

std::optional<LumaThumbnail> FrameThumbnailer::take() {
#ifdef VF_HAVE_CUDA
    if (pending_ && cuda_->thumbnail->ready()) {
        ready_ = cuda_->thumbnail->copy();
        cuda_->frame.reset();  // the decoder's surface goes back
        pending_ = false;
    }
#endif
    std::optional<LumaThumbnail> out = std::move(ready_);
    ready_.reset();
    return out;
}

}  // namespace vf
