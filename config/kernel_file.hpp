// Reads a convolution matrix from text: one row per line, numbers separated by spaces, tabs or
// commas, '#' starts a comment. Rows must have equal, odd lengths; the row count must be odd.
// A kernel file is read only when it is a regular file, and only as far as the largest kernel
// takes (kMaxKernelFileBytes): a device, a FIFO or /dev/zero is refused before a byte is read. A
// file's text is never quoted back in an error (a client must not read a file through them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vf {

struct KernelMatrix {
    int width = 0, height = 0;
    std::vector<double> values;  // row-major
};

// Where a filter chain's file= kernels may be read from. The operator's chains (the command line,
// serve's config file) read any path; a chain an API client sent reads only names inside the
// folder the operator gave (serve --kernel-dir), resolved without following a symbolic link, and
// none at all without one.
struct KernelFiles {
    bool anywhere = true;
    std::string folder;  // with anywhere false: the folder; "" means no file may be read
    static KernelFiles only_in(std::string folder) { return {false, std::move(folder)}; }
};

// The largest file a kernel needs: 127x127 coefficients of up to 24 characters, with comments.
constexpr size_t kMaxKernelFileBytes = 1u << 20;

// require_odd=false skips the odd-size check, for a single line that is reshaped afterwards.
// quote=false: errors name the line, never the text (for files).
KernelMatrix parse_kernel_text(const std::string& text, const std::string& origin, bool require_odd = true, bool quote = true);
KernelMatrix read_kernel_file(const std::string& path, const KernelFiles& files = {});

// The path a client's file= name stands for under `files` (its folder + the name), or an
// Error(Usage, forbidden) saying why the name may not be read. Lexical: the file itself is
// opened later, without following links.
std::string kernel_file_path(const std::string& name, const KernelFiles& files);

}  // namespace vf
