// The element on GStreamer's CUDA memory (video/x-raw(memory:CUDAMemory)): the CUDA context the
// pipeline shares, and the copies within the GPU. Built with CUDA and GStreamer's gstcuda library.
//
// vfilter's engine runs in each GPU's primary context (the CUDA runtime's). The element offers the
// pipeline a GstCudaContext that wraps that context, so buffers allocated by its neighbours are
// read in place. Where a neighbour brought a context of its own (cuCtxCreate), GPU memory of one
// context cannot be used by kernels of another: the element then maps buffers through host
// memory and says so once.
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include "media/av_helpers.hpp"

namespace vf {

// Loads GStreamer's CUDA library (libcuda through its loader) and registers its CUDA allocator;
// false where there is no driver.
bool gst_cuda_usable();

// The device's primary context as a GstCudaContext, held while this lives.
class PrimaryCudaContext {
public:
    explicit PrimaryCudaContext(int device);  // throws Error(Device) when the device cannot be used
    ~PrimaryCudaContext();
    PrimaryCudaContext(const PrimaryCudaContext&) = delete;
    PrimaryCudaContext& operator=(const PrimaryCudaContext&) = delete;
    GstCudaContext* get() const { return context_; }
    // Whether `other` is the same CUDA context (its buffers can be read in place).
    bool same(GstCudaContext* other) const;

private:
    int device_;
    void* handle_ = nullptr;  // CUcontext
    GstCudaContext* context_ = nullptr;
};

// Copies `src` (device or host memory) into the mapped frame's planes (device memory, or host
// memory of a system map), within the GPU where both are on it; returns when done.
void copy_frame_on_gpu(const AVFrame& src, GstVideoFrame& dst);

}  // namespace vf
