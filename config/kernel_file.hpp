// Reads a convolution matrix from text: one row per line, numbers separated by spaces, tabs or
// commas, '#' starts a comment. Rows must have equal, odd lengths; the row count must be odd.
#pragma once

#include <string>
#include <vector>

namespace vf {

struct KernelMatrix {
    int width = 0, height = 0;
    std::vector<double> values;  // row-major
};

// require_odd=false skips the odd-size check, for a single line that is reshaped afterwards.
KernelMatrix parse_kernel_text(const std::string& text, const std::string& origin, bool require_odd = true);
KernelMatrix read_kernel_file(const std::string& path);

}  // namespace vf
