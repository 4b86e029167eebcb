// A decoded frame's luma thumbnail for a stream's watch (kernels/luma_thumbnail.hpp): made on the
// host from a host frame, on the GPU from a CUDA frame (NVDEC) where only the thumbnail crosses to
// the host. Used by the watch's one thread (camera_watchers.hpp), never by the stream's.
#pragma once

#include <memory>
#include <optional>

#include "kernels/luma_thumbnail.hpp"
#include "media/av_helpers.hpp"

namespace vf {

class GpuRuntime;

// The frame's luma plane as a PlaneView (host frames of a YUV or grey format, 8 to 16 bits);
// nullopt for formats without a luma plane (RGB) and hardware frames.
std::optional<PlaneView> host_luma_view(const AVFrame& frame);

class FrameThumbnailer {
public:
    // gpu: where the stream's CUDA frames live (its placement); runtime: the process's (may be null).
    FrameThumbnailer(std::shared_ptr<GpuRuntime> runtime, int gpu);
    ~FrameThumbnailer();

    // Starts the thumbnail of `frame`: a host frame's is made at once; a CUDA frame's is queued on
    // the GPU (the frame held until it is done). False when the frame cannot be measured (its
    // format, or a build without CUDA for a CUDA frame): it is skipped.
    bool start(AvFramePtr frame);
    // The thumbnail once made (a GPU one once it landed, never waiting); nullopt before.
    std::optional<LumaThumbnail> take();
    bool busy() const { return pending_ || ready_.has_value(); }

private:
    std::shared_ptr<GpuRuntime> runtime_;
    int gpu_;
    std::optional<LumaThumbnail> ready_;
    bool pending_ = false;  // a GPU thumbnail under way
#ifdef VF_HAVE_CUDA
    struct Gpu;
    std::unique_ptr<Gpu> cuda_;
    bool start_on_gpu(AvFramePtr frame);
#endif
};

}  // namespace vf
