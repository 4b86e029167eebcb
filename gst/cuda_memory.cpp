#include "gst/cuda_memory.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

#include <string>

#include "common/error.hpp"
#include "gst/video_frames.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "pipeline/gpu_rgb_repack.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace vf {

bool gst_cuda_usable() {
    if (!gst_cuda_load_library()) return false;
    gst_cuda_memory_init_once();  // registers GStreamer's CUDA allocator, which its buffer pools need
    return true;
}

namespace {

// The driver's primary-context calls, looked up at run time as GStreamer's loader does: the
// plugin must load on machines without the driver (it then offers system memory only).
struct PrimaryContextCalls {
    CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*release)(CUdevice) = nullptr;
    CUresult (*device_get)(CUdevice*, int) = nullptr;
    bool loaded() const { return retain && release && device_get; }
};

const PrimaryContextCalls& primary_context_calls() {
    static const PrimaryContextCalls calls = [] {
        PrimaryContextCalls c;
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // kept for the process: GStreamer's loader holds it too
        if (!lib) return c;
        c.retain = reinterpret_cast<decltype(c.retain)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
        c.release = reinterpret_cast<decltype(c.release)>(dlsym(lib, "cuDevicePrimaryCtxRelease_v2"));
        c.device_get = reinterpret_cast<decltype(c.device_get)>(dlsym(lib, "cuDeviceGet"));
        return c;
    }();
    return calls;
}

}  // namespace

PrimaryCudaContext::PrimaryCudaContext(int device) : device_(device) {
    const PrimaryContextCalls& cu = primary_context_calls();
    CUdevice dev = 0;
    CUcontext primary = nullptr;
    // The runtime initialises the driver and the primary context with vfilter's flags first.
    if (!cu.loaded() || cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
        cu.device_get(&dev, device) != CUDA_SUCCESS || cu.retain(&primary, dev) != CUDA_SUCCESS) {
        cudaGetLastError();
        fail(ErrorCategory::Device, "GPU " + std::to_string(device) + " cannot be used (no CUDA driver, or no such device)");
    }
    handle_ = primary;
    context_ = gst_cuda_context_new_wrapped(primary, dev);
    if (!context_) {
        cu.release(dev);
        fail(ErrorCategory::Device, "GStreamer cannot wrap GPU " + std::to_string(device) + "'s CUDA context");
    }
}

PrimaryCudaContext::~PrimaryCudaContext() {
    gst_object_unref(context_);
    const PrimaryContextCalls& cu = primary_context_calls();
    CUdevice dev = 0;
    if (cu.device_get(&dev, device_) == CUDA_SUCCESS) cu.release(dev);
}

bool PrimaryCudaContext::same(GstCudaContext* other) const { return other && gst_cuda_context_get_handle(other) == handle_; }

void copy_frame_on_gpu(const AVFrame& src, GstVideoFrame& dst) {
    const AVPixelFormat format = static_cast<AVPixelFormat>(src.format);
    if (format != av_format_of(GST_VIDEO_FRAME_FORMAT(&dst))) {  // packed RGB's planes, packed again
        AvFramePtr packed = frame_over(dst);
        cuda::repack_rgb_on_gpu(&src, packed.get(), nullptr);
        VF_CUDA_CHECK(cudaStreamSynchronize(nullptr));
        return;
    }
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    uint8_t* to[4];
    int stride[4];
    plane_pointers(dst, to, stride);
    for (int p = 0; p < av_pix_fmt_count_planes(format); ++p) {
        const int rows = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(src.height, d->log2_chroma_h) : src.height;
        VF_CUDA_CHECK(cudaMemcpy2D(to[p], stride[p], src.data[p], src.linesize[p], av_image_get_linesize(format, src.width, p), rows,
                                   cudaMemcpyDefault));
    }
}

}  // namespace vf
