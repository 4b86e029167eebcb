#include "kernels/cuda_backend.hpp"

#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/op_cache.hpp"

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
    case GpuKernel::Fft: return "fft";
    case GpuKernel::Tensor: return "tensor";
    }
    return "?";
}

bool parse_gpu_kernel(const std::string& name, GpuKernel* out) {
    for (GpuKernel k : {GpuKernel::Auto, GpuKernel::Naive, GpuKernel::Constant, GpuKernel::Tiled, GpuKernel::Separable,
                        GpuKernel::Fft, GpuKernel::Tensor})
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

GpuKernel CudaBackend::choose(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream) const {
    if (op.kind != OpKind::Convolve) return GpuKernel::Tiled;
    const ConvolveOp& c = op.conv;
    if (c.separable()) return GpuKernel::Separable;
    if (c.kw * c.kh < 7 * 7) return GpuKernel::Tiled;
    static cuda::OpCache<GpuKernel> chosen;
    // Per plane size and peak sample (which decides whether the tensor path is exact).
    const uint64_t key = cuda::pack(src.width, src.height) ^ (static_cast<uint64_t>(src.peak()) * 0x9E3779B97F4A7C15ull);
    return chosen.get(c, key, [&] {
        std::vector<GpuKernel> candidates = {GpuKernel::Tiled};
        if (cuda::imma_eligible(c, src, dst) || cuda::tensor_eligible(c, src)) candidates.push_back(GpuKernel::Tensor);
        if (c.kw * c.kh >= 15 * 15) candidates.push_back(GpuKernel::Fft);
        if (candidates.size() == 1) return std::make_unique<GpuKernel>(GpuKernel::Tiled);
        // Time each candidate once after one untimed run (plans, constant uploads), into dst:
        // they compute the same function, and the real call follows.
        cuda::Event a, b;
        float best_ms = 0;
        GpuKernel best = GpuKernel::Tiled;
        for (GpuKernel k : candidates) {
            apply(op, src, dst, stream, k);
            a.record(stream);
            apply(op, src, dst, stream, k);
            b.record(stream);
            const float ms = b.since(a);
            if (k == GpuKernel::Tiled || ms < best_ms) best_ms = ms, best = k;
        }
        return std::make_unique<GpuKernel>(best);
    });
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
    if (kernel == GpuKernel::Auto) kernel = choose(op, src, dst, stream);
    switch (kernel) {
    case GpuKernel::Fft: return cuda::conv_fft(op.conv, l);
    case GpuKernel::Tensor: return cuda::conv_tensor(op.conv, l);
    case GpuKernel::Naive: return cuda::conv_naive(op.conv, l);
    case GpuKernel::Constant: return cuda::conv_constant(op.conv, l);
    case GpuKernel::Separable:
        if (op.conv.separable()) return cuda::conv_separable(op.conv, l);
        throw Error(ErrorCategory::Usage, "--kernel separable: this filter's matrix is not separable (rank > 1)");
    default: return cuda::conv_tiled(op.conv, l);
    }
}

}  // namespace vf
