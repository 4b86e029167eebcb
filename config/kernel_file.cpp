#include "config/kernel_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "kernels/plan.hpp"

namespace vf {

KernelMatrix parse_kernel_text(const std::string& text, const std::string& origin, bool require_odd) {
    KernelMatrix m;
    std::istringstream in(text);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const size_t hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        for (char& c : line)
            if (c == ',' || c == '\t' || c == '\r') c = ' ';
        std::istringstream row(line);
        std::string tok;
        int count = 0;
        while (row >> tok) {
            const char* s = tok.c_str();
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(s, &end);
            if (end == s || *end != '\0')
                fail(ErrorCategory::Usage, origin + ":" + std::to_string(line_no) + ": '" + tok + "' is not a number");
            if (!std::isfinite(v) || std::fabs(v) > 1e9)
                fail(ErrorCategory::Usage, origin + ":" + std::to_string(line_no) + ": '" + tok +
                                               "' is not a finite coefficient within +-1e9");
            m.values.push_back(v);
            ++count;
        }
        if (count == 0) continue;
        if (m.height > 0 && count != m.width)
            fail(ErrorCategory::Usage, origin + ":" + std::to_string(line_no) + ": row has " + std::to_string(count) +
                                           " values, earlier rows have " + std::to_string(m.width));
        m.width = count;
        ++m.height;
        if (require_odd && (m.width > kMaxKernelSize || m.height > kMaxKernelSize))
            fail(ErrorCategory::Usage, origin + ": kernel larger than " + std::to_string(kMaxKernelSize) + "x" +
                                           std::to_string(kMaxKernelSize) + " is not supported");
    }
    if (m.height == 0) fail(ErrorCategory::Usage, origin + ": no coefficients found");
    if (require_odd && (m.width % 2 == 0 || m.height % 2 == 0))
        fail(ErrorCategory::Usage, origin + ": kernel is " + std::to_string(m.width) + "x" + std::to_string(m.height) +
                                       "; both sides must be odd");
    return m;
}

KernelMatrix read_kernel_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(ErrorCategory::Usage, "kernel file '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    if (text.size() > (16u << 20)) fail(ErrorCategory::Usage, "kernel file '" + path + "': larger than 16 MiB");
    return parse_kernel_text(text, "kernel file '" + path + "'");
}

}  // namespace vf
