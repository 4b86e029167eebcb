#include "kernels/cuda_backend.hpp"

#include "common/error.hpp"
#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"

namespace vf {

const char* gpu_kernel_name(GpuKernel k) {
    switch (k) {
    case GpuKernel::Auto: return "auto";
    case GpuKernel::Naive: return "naive";
    case GpuKernel::Constant: return "constant";
    case GpuKernel::Tiled: return "tiled";
    case GpuKernel::Separable: return "separable";
    }
    return "?";
}

bool parse_gpu_kernel(const std::string& name, GpuKernel* out) {
    for (GpuKernel k : {GpuKernel::Auto, GpuKernel::Naive, GpuKernel::Constant, GpuKernel::Tiled, GpuKernel::Separable})
        if (name == gpu_kernel_name(k)) {
            *out = k;
            return true;
        }
    return false;
}

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
    return true;
}

GpuKernel CudaBackend::choose(const PlaneOp& op) {
    if (op.kind == OpKind::Convolve && op.conv.separable()) return GpuKernel::Separable;
    return GpuKernel::Tiled;
}

void CudaBackend::apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
                        GpuKernel kernel) const {
    if (src.width <= 0 || src.height <= 0) return;
    cuda::Launch l{src, dst, op.border, stream};
    switch (op.kind) {
    case OpKind::Copy:
        return cuda::copy_plane(l);
    case OpKind::Fill:
        return cuda::fill_neutral(l);
    case OpKind::Gradient:
        return cuda::gradient(op.grad, l);
    case OpKind::Convolve:
        break;
    }
    if (kernel == GpuKernel::Auto) kernel = choose(op);
    switch (kernel) {
    case GpuKernel::Naive: return cuda::conv_naive(op.conv, l);
    case GpuKernel::Constant: return cuda::conv_constant(op.conv, l);
    case GpuKernel::Separable:
        if (op.conv.separable()) return cuda::conv_separable(op.conv, l);
        throw Error(ErrorCategory::Usage, "--kernel separable: this filter's matrix is not separable (rank > 1)");
    default: return cuda::conv_tiled(op.conv, l);
    }
}

}  // namespace vf
