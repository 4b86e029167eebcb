// What --kernel names in every build: `auto` and the families of the GPU dispatch table
// (kernels/cuda/dispatch_table.cpp names the rows, in builds with CUDA). No CUDA here, so the
// command line checks the option the same way with or without the CUDA backend.
#pragma once

#include <string>

namespace vf {

enum class GpuKernel { Auto, Naive, Constant, Tiled, Separable, Fft, Tensor };

constexpr GpuKernel kGpuKernelFamilies[] = {GpuKernel::Auto, GpuKernel::Naive, GpuKernel::Constant, GpuKernel::Tiled,
                                            GpuKernel::Separable, GpuKernel::Fft, GpuKernel::Tensor};

inline const char* gpu_kernel_name(GpuKernel k) {
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

// auto or a family's name; false otherwise.
inline bool parse_gpu_kernel_family(const std::string& name, GpuKernel* out) {
    for (GpuKernel k : kGpuKernelFamilies)
        if (name == gpu_kernel_name(k)) {
            *out = k;
            return true;
        }
    return false;
}

// "auto, naive, ..., tensor".
inline std::string gpu_kernel_family_names() {
    std::string s;
    for (GpuKernel k : kGpuKernelFamilies) s += std::string(s.empty() ? "" : ", ") + gpu_kernel_name(k);
    return s;
}

}  // namespace vf
