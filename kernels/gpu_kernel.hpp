// What --kernel names in every build: `auto`, the families of the GPU dispatch table and, in
// builds with CUDA, its rows (kernels/cuda/dispatch_table.cpp). No CUDA types here, so the
// command line parses the option the same way with or without the CUDA backend.
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

// What --kernel selects: auto, a family, or one row of the dispatch table.
struct KernelChoice {
    GpuKernel family = GpuKernel::Auto;
    int row = -1;  // a forced row of the dispatch table (its index), or -1
    bool is_auto() const { return family == GpuKernel::Auto && row < 0; }
};

// Accepts auto, a family (naive, constant, tiled, separable, fft, tensor) or, in builds with
// CUDA, a row's name; false otherwise. kernel_choices() lists what is accepted (for messages).
// Defined in kernels/kernel_choice.cpp.
bool parse_kernel_choice(const std::string& name, KernelChoice* out);
std::string kernel_choices();

}  // namespace vf
