#include "kernels/cuda_backend.hpp"

#include <mutex>

#include "common/error.hpp"
#include "kernels/cuda/dispatch_table.hpp"

namespace vf {
namespace {

const cuda::Variant& forced_family(GpuKernel family, const PlaneOp& op, const cuda::Launch& l) {
    switch (family) {
    case GpuKernel::Naive: return cuda::first_of_family(cuda::Family::Naive, op, l);
    case GpuKernel::Constant: return cuda::first_of_family(cuda::Family::Constant, op, l);
    case GpuKernel::Fft: return cuda::first_of_family(cuda::Family::Fft, op, l);
    case GpuKernel::Tensor: return cuda::first_of_family(cuda::Family::Tensor, op, l);
    case GpuKernel::Separable:
        if (!op.conv.separable())
            throw Error(ErrorCategory::Usage, "--kernel separable: this filter's matrix is not separable (rank > 1)");
        if (cuda::is_box(op.conv)) return cuda::first_of_family(cuda::Family::Box, op, l);
        return cuda::first_of_family(cuda::Family::Separable, op, l);
    default: return cuda::first_of_family(cuda::Family::Direct, op, l);
    }
}

// A forced row applies to the operations of its own kind (a gradient row to gradients, the others
// to convolutions); the rest of a chain (the chroma planes' copies and fills, a Sobel after a
// forced blur) runs what `auto` picks, as a forced family does.
bool serves(const cuda::Variant& v, const PlaneOp& op) {
    switch (v.family) {
    case cuda::Family::Copy: return op.kind == OpKind::Copy;
    case cuda::Family::Fill: return op.kind == OpKind::Fill;
    case cuda::Family::Gradient: return op.kind == OpKind::Gradient;
    default: return op.kind == OpKind::Convolve;
    }
}

}  // namespace

bool cuda_device_available(std::string* reason) {
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (reason) *reason = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error
        return false;
    }
    if (n == 0) {
        if (reason) *reason = "no CUDA device found";
        return false;
    }
    // FFmpeg's NVDEC shares CUDA's primary context only if it was created with the flags NVDEC asks
    // for (blocking sync); created by a kernel launch first, with the runtime's own flags, NVDEC
    // refuses it and decoding falls back to the CPU. So the flags are set before anything creates
    // the context, whichever part of vfilter reaches the GPU first (a served file's filters before
    // a camera's NVDEC decoder, say). Set once; an already created context keeps its flags.
    static std::once_flag flags_set;
    std::call_once(flags_set, [] {
        if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) cudaGetLastError();
    });
    return true;
}

int gpu_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

bool select_gpu(int index, std::string* why) {
    const int n = gpu_count();
    if (index < 0 || index >= n) {
        *why = "GPU " + std::to_string(index) + " does not exist (CUDA sees " + std::to_string(n) + ")";
        return false;
    }
    // Already current (GPU 0 by default): nothing to do. cudaSetDevice would create the primary
    // context now, with the runtime's flags, and NVDEC (FFmpeg) then refuses to share it.
    int now = -1;
    if (cudaGetDevice(&now) == cudaSuccess && now == index) return true;
    cudaError_t err = cudaSetDevice(index);
    // The flags FFmpeg's NVDEC asks of the primary context, so that it can share this one.
    if (err == cudaSuccess) err = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (err != cudaSuccess) {
        *why = "cannot use GPU " + std::to_string(index) + ": " + cudaGetErrorString(err);
        cudaGetLastError();
        return false;
    }
    return true;
}

bool gpu_memory_info(size_t* used_bytes, size_t* total_bytes) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    *used_bytes = total - free_bytes;
    *total_bytes = total;
    return true;
}

const char* CudaBackend::choose(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream) const {
    return cuda::choose_variant(op, cuda::Launch{src, dst, op.border, stream}).name;
}

const char* CudaBackend::apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
                               const KernelChoice& kernel) const {
    if (src.width <= 0 || src.height <= 0) return "none";
    const cuda::Launch l{src, dst, op.border, stream};
    const cuda::Variant* v = nullptr;
    const cuda::Variant* forced = kernel.row >= 0 ? &cuda::dispatch_table().at(static_cast<size_t>(kernel.row)) : nullptr;
    if (forced && serves(*forced, op)) {
        v = forced;
        if (!v->takes(op, l))
            throw Error(ErrorCategory::Usage, std::string("--kernel ") + v->name + " does not take this filter on this plane; it takes " +
                                                  v->takes_text);
    } else if (forced || kernel.family == GpuKernel::Auto || op.kind != OpKind::Convolve) {
        // Copies, fills and gradients have their own rows whatever the family asked for.
        v = &cuda::choose_variant(op, l);
    } else {
        v = &forced_family(kernel.family, op, l);
    }
    v->launch(op, l);
    return v->name;
}

const char* CudaBackend::apply_batch(const PlaneOp& op, const PlaneView* src, const PlaneView* dst, int count,
                                     cudaStream_t stream, const KernelChoice& kernel) const {
    if (count <= 0 || src[0].width <= 0 || src[0].height <= 0) return "none";
    for (int i = 1; i < count; ++i)
        if (src[i].width != src[0].width || src[i].height != src[0].height || dst[i].width != src[0].width ||
            dst[i].height != src[0].height)
            fail(ErrorCategory::Internal, "apply_batch: the planes of one batch differ in size");
    const cuda::BatchLaunch b{src, dst, count, op.border, stream};
    if (kernel.is_auto())
        if (const cuda::Variant* v = cuda::choose_batch_variant(op, b)) {
            cuda::batch_launcher(*v)(op, b);
            return v->name;
        }
    const char* ran = "none";
    for (int i = 0; i < count; ++i) ran = apply(op, src[i], dst[i], stream, kernel);
    return ran;
}

}  // namespace vf
