// The families of the GPU dispatch table and what --kernel names: `auto`, a family, or (in builds
// with CUDA) one row of the table (kernels/cuda/dispatch_table.cpp). No CUDA types here, so the
// command line parses the option the same way with or without the CUDA backend.
#pragma once

#include <optional>
#include <string>

namespace vf {

// Every row of the dispatch table belongs to one family. `Direct` is named `tiled` (direct sums
// through a shared-memory tile, or strips of registers). `Ffmpeg` rows compute FFmpeg's own
// integer arithmetic (boxblur's and unsharp's under arithmetic=ffmpeg), one row per operation.
enum class KernelFamily { Copy, Fill, Gradient, Box, Separable, Direct, Tensor, Fft, Naive, Constant, Ffmpeg };

inline const char* kernel_family_name(KernelFamily f) {
    switch (f) {
    case KernelFamily::Copy: return "copy";
    case KernelFamily::Fill: return "fill";
    case KernelFamily::Gradient: return "gradient";
    case KernelFamily::Box: return "box";
    case KernelFamily::Separable: return "separable";
    case KernelFamily::Direct: return "tiled";
    case KernelFamily::Tensor: return "tensor";
    case KernelFamily::Fft: return "fft";
    case KernelFamily::Naive: return "naive";
    case KernelFamily::Constant: return "constant";
    case KernelFamily::Ffmpeg: return "ffmpeg";
    }
    return "?";
}

// The families --kernel can force on convolutions (copies, fills and gradients have rows of their
// own whatever is forced; `separable` covers the box rows too).
constexpr KernelFamily kForcibleFamilies[] = {KernelFamily::Naive,     KernelFamily::Constant, KernelFamily::Direct,
                                              KernelFamily::Separable, KernelFamily::Fft,      KernelFamily::Tensor};

// What --kernel selects: auto, a family, or one row of the dispatch table.
struct KernelChoice {
    std::optional<KernelFamily> family;  // a forced family, or none
    int row = -1;                        // a forced row of the dispatch table (its index), or -1

    KernelChoice() = default;
    KernelChoice(KernelFamily f) : family(f) {}  // NOLINT: a family is a choice
    bool is_auto() const { return !family && row < 0; }
    bool operator==(const KernelChoice& o) const { return family == o.family && row == o.row; }
    bool operator!=(const KernelChoice& o) const { return !(*this == o); }
};

// "auto, naive, constant, tiled, separable, fft, tensor".
inline std::string kernel_family_names() {
    std::string s = "auto";
    for (KernelFamily f : kForcibleFamilies) s += std::string(", ") + kernel_family_name(f);
    return s;
}

// Accepts auto, a forcible family or, in builds with CUDA, a row's name; false otherwise.
// kernel_choices() lists what is accepted (for messages). Defined in kernels/kernel_choice.cpp.
bool parse_kernel_choice(const std::string& name, KernelChoice* out);
std::string kernel_choices();
// What --kernel was given, as it would be typed ("auto", "tensor", "imma").
std::string kernel_choice_name(const KernelChoice& choice);

}  // namespace vf
