#include "kernels/gpu_kernel.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda/dispatch_table.hpp"
#endif

namespace vf {

bool parse_kernel_choice(const std::string& name, KernelChoice* out) {
    if (GpuKernel k; parse_gpu_kernel_family(name, &k)) {
        *out = KernelChoice{k, -1};
        return true;
    }
#ifdef VF_HAVE_CUDA
    const auto& table = cuda::dispatch_table();
    for (size_t i = 0; i < table.size(); ++i)
        if (name == table[i].name) {
            *out = KernelChoice{GpuKernel::Auto, static_cast<int>(i)};
            return true;
        }
#endif
    return false;
}

std::string kernel_choices() {
    std::string s = gpu_kernel_family_names();
#ifdef VF_HAVE_CUDA
    for (const cuda::Variant& v : cuda::dispatch_table())
        if (GpuKernel k; !parse_gpu_kernel_family(v.name, &k)) s += std::string(", ") + v.name;  // fft, naive, constant once
#else
    s += " (the variants' names need a build with CUDA)";
#endif
    return s;
}

}  // namespace vf
