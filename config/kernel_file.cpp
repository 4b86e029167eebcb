#include "config/kernel_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "common/error.hpp"
#include "kernels/plan.hpp"

namespace vf {

KernelMatrix parse_kernel_text(const std::string& text, const std::string& origin, bool require_odd, bool quote) {
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
            // A file's words are never quoted: its error would show a client what the file holds.
            const std::string what = quote ? "'" + tok + "'" : "value " + std::to_string(count + 1);
            if (end == s || *end != '\0')
                fail(ErrorCategory::Usage, origin + ":" + std::to_string(line_no) + ": " + what + " is not a number");
            if (!std::isfinite(v) || std::fabs(v) > 1e9)
                fail(ErrorCategory::Usage, origin + ":" + std::to_string(line_no) + ": " + what +
                                               " is not a finite coefficient within +-1e9");
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

std::string kernel_file_path(const std::string& name, const KernelFiles& files) {
    if (files.anywhere) return name;
    if (files.folder.empty())
        forbid("file= kernels are read only from the folder the operator gives (kernel-dir in serve's serve: block); this serve has none");
    std::filesystem::path p = std::filesystem::path(name).lexically_normal();
    if (p.is_absolute()) p = p.lexically_relative(std::filesystem::path(files.folder).lexically_normal());
    bool up = p.empty();
    for (const auto& part : p) up |= part == "..";
    if (name.empty() || up || p == "." || name.find('\0') != std::string::npos)
        forbid("file='" + name + "': give the name of a file inside the kernel-dir folder (no '..', nothing outside it)");
    return files.folder + "/" + p.string();
}

namespace {

// Opens `path` for reading without following a symbolic link anywhere below `folder` (each
// folder on the way is opened with O_NOFOLLOW), or anywhere along the path when folder is "".
int open_no_links(const std::string& folder, const std::string& path) {
    if (folder.empty()) return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const std::filesystem::path rest = std::filesystem::path(path.substr(folder.size() + 1)).lexically_normal();
    std::vector<std::string> parts;
    for (const auto& part : rest) parts.push_back(part.string());
    for (size_t i = 0; dir >= 0 && i < parts.size(); ++i) {
        const bool last = i + 1 == parts.size();
        const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (last ? O_NONBLOCK : O_DIRECTORY);
        const int next = ::openat(dir, parts[i].c_str(), flags);
        const int saved = errno;
        ::close(dir);
        errno = saved;
        dir = next;
    }
    return dir;
}

}  // namespace

KernelMatrix read_kernel_file(const std::string& name, const KernelFiles& files) {
    const std::string path = kernel_file_path(name, files);
    const std::string origin = "kernel file '" + name + "'";
    const int fd = open_no_links(files.anywhere ? "" : files.folder, path);
    if (fd < 0) {
        const bool link = errno == ELOOP || errno == ENOTDIR;
        fail(ErrorCategory::Usage, origin + ": " + (link && !files.anywhere ? "a symbolic link (not followed)" : std::strerror(errno)));
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(ErrorCategory::Usage, origin + ": not a regular file");
    }
    // Read one byte past the bound, so a file that is larger (or grows while read) is refused.
    std::string text(kMaxKernelFileBytes + 1, '\0');
    size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    if (got > kMaxKernelFileBytes)
        fail(ErrorCategory::Usage, origin + ": larger than " + std::to_string(kMaxKernelFileBytes >> 10) +
                                       " KiB, more than the largest kernel needs");
    text.resize(got);
    return parse_kernel_text(text, origin, true, false);
}

}  // namespace vf
