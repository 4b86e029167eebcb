#include "kernels/gpu_kernel.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda/dispatch_table.hpp"
#endif

namespace vf {
namespace {

bool parse_family(const std::string& name, KernelFamily* out) {
    for (KernelFamily f : kForcibleFamilies)
        if (name == kernel_family_name(f)) {
            *out = f;
            return true;
        }
    return false;
}

}  // namespace

bool parse_kernel_choice(const std::string& name, KernelChoice* out) {
    if (name == "auto") {
        *out = KernelChoice{};
        return true;
    }
    if (KernelFamily f; parse_family(name, &f)) {
        *out = KernelChoice{f};
        return true;
    }
#ifdef VF_HAVE_CUDA
    const auto& table = cuda::dispatch_table();
    for (size_t i = 0; i < table.size(); ++i)
        if (name == table[i].name) {
            *out = KernelChoice{};
            out->row = static_cast<int>(i);
            return true;
        }
#endif
    return false;
}

std::string kernel_choices() {
    std::string s = kernel_family_names();
#ifdef VF_HAVE_CUDA
    for (const cuda::Variant& v : cuda::dispatch_table())
        if (KernelFamily f; !parse_family(v.name, &f)) s += std::string(", ") + v.name;  // fft, naive, constant once
#else
    s += " (the variants' names need a build with CUDA)";
#endif
    return s;
}

std::string kernel_choice_name(const KernelChoice& choice) {
#ifdef VF_HAVE_CUDA
    if (choice.row >= 0 && static_cast<size_t>(choice.row) < cuda::dispatch_table().size())
        return cuda::dispatch_table()[static_cast<size_t>(choice.row)].name;
#endif
    if (choice.family) return kernel_family_name(*choice.family);
    return "auto";
}

}  // namespace vf
