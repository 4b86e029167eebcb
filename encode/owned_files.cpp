#include "encode/owned_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "common/error.hpp"

namespace vf {
namespace {

std::string output_named(const std::string& path) { return "output '" + path + "'"; }

OpenedFile refused_with(int error, const std::string& why) { return OpenedFile{-1, error, why}; }

OpenedFile system_failure(const std::string& what, const std::string& path) {
    const int e = errno;
    return refused_with(e, "cannot " + what + " " + output_named(path) + ": " + std::strerror(e));
}

// "dir/name-2.ext" beside "dir/name.ext" (n = 2), or "dir/name-2" for a name without extension.
std::string numbered_beside(const std::string& path, int n) {
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    const size_t at = dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1 ? path.size() : dot;
    return path.substr(0, at) + "-" + std::to_string(n) + path.substr(at);
}

}  // namespace

void OwnedFiles::remember(const std::string& path, int fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return;
    created_[path] = {st.st_dev, st.st_ino};
    adopted_.erase(path);
    if (created_.size() % 1024 == 0) forget_gone();
}

// A recording of months names many files; those no longer there (deleted by retention or by the
// HLS muxer) are forgotten, so this holds about what is on the disk.
void OwnedFiles::forget_gone() {
    for (auto it = created_.begin(); it != created_.end();) {
        if (owns(it->first)) {
            ++it;
            continue;
        }
        adopted_.erase(it->first);
        it = created_.erase(it);
    }
}

bool OwnedFiles::holds(const std::string& path, const std::string& as) const {
    const auto it = created_.find(as);
    struct stat st {};
    return it != created_.end() && lstat(path.c_str(), &st) == 0 && it->second == FileId{st.st_dev, st.st_ino};
}

void OwnedFiles::same_file(const std::string& from, const std::string& to) {
    const auto it = created_.find(from);
    if (it != created_.end()) created_[to] = it->second;
}

OpenedFile OwnedFiles::open_for_write(const std::string& path) {
    // Two rounds: the second creates the file again after -y removed the one in the way.
    for (int round = 0; round < 2; ++round) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            remember(path, fd);
            return OpenedFile{fd, 0, ""};
        }
        if (errno != EEXIST) return system_failure("write", path);
        OpenedFile existing = refuse_existing(path);
        if (existing.fd >= 0 || existing.error != 0) return existing;
    }
    return refused_with(EEXIST, output_named(path) + " keeps reappearing; refusing to overwrite it");
}

// Something is at `path`: this output's own file (opened again, emptied), one -y may replace
// (removed: {fd -1, error 0} asks the caller to create it again), or a refusal.
OpenedFile OwnedFiles::refuse_existing(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? OpenedFile{} : system_failure("inspect", path);
    if (S_ISLNK(st.st_mode))
        return refused_with(ELOOP, output_named(path) + " is a symbolic link; vfilter never writes through one (remove it, or name "
                                             "the file it points to)");
    const auto own = created_.find(path);
    if (own != created_.end() && own->second == FileId{st.st_dev, st.st_ino} && adopted_.count(path)) {
        // A file a restarted recording took back by its name alone: nothing shows this output
        // wrote that inode (a hard link to a file elsewhere looks the same), so it is never
        // written into. The name is given up and made anew; the inode keeps its bytes.
        adopted_.erase(path);
        created_.erase(own);
        if (unlink(path.c_str()) != 0 && errno != ENOENT) return system_failure("replace", path);
        return OpenedFile{};
    }
    if (own != created_.end() && own->second == FileId{st.st_dev, st.st_ino}) {
        // O_NOFOLLOW and the inode checked on the descriptor: a file put in its place between the
        // two calls is never the one emptied.
        const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) return system_failure("open", path);
        struct stat opened {};
        if (fstat(fd, &opened) == 0 && own->second == FileId{opened.st_dev, opened.st_ino} &&
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 && ftruncate(fd, 0) == 0)
            return OpenedFile{fd, 0, ""};
        ::close(fd);
        return refused_with(EEXIST, output_named(path) + " was replaced by a file vfilter did not write; refusing to overwrite it");
    }
    if (!S_ISREG(st.st_mode)) return refused_with(EEXIST, output_named(path) + " exists and is not a regular file; refusing to write it");
    if (!overwrite_) {
        // A command-line run killed with SIGKILL leaves its OUT.partial: say so, since "not
        // written by vfilter" would then read as false.
        const bool partial = path.size() > 8 && path.compare(path.size() - 8, 8, ".partial") == 0;
        return refused_with(EEXIST, output_named(path) + (partial ? " exists (a run that was killed leaves one; play it, then remove it, "
                                                                    "or pass -y to replace it); refusing to overwrite it"
                                                                  : " exists and was not written by vfilter; refusing to overwrite it"));
    }
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return system_failure("replace", path);
    return OpenedFile{};
}

OpenedFile OwnedFiles::open_for_read(const std::string& path) const {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return system_failure("read", path);
    struct stat st {};
    const auto own = created_.find(path);
    if (fstat(fd, &st) == 0 && own != created_.end() && own->second == FileId{st.st_dev, st.st_ino}) return OpenedFile{fd, 0, ""};
    ::close(fd);
    return refused_with(EACCES, output_named(path) + " was not written by this output; it is not read back");
}

bool OwnedFiles::adopt(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    created_[path] = {st.st_dev, st.st_ino};
    adopted_.insert(path);
    return true;
}

void OwnedFiles::remove_if_owned(const std::string& path) const {
    if (owns(path)) ::unlink(path.c_str());
}

int rename_without_replacing(const std::string& from, const std::string& to) {
    if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno;
    // A filesystem without RENAME_NOREPLACE: link() fails on a taken name as well.
    if (link(from.c_str(), to.c_str()) != 0) return errno;
    ::unlink(from.c_str());
    return 0;
}

std::string move_without_replacing(const std::string& from, const std::string& to, bool replace_regular) {
    int err = rename_without_replacing(from, to);
    if (err == 0) return to;
    struct stat st {};
    if (err == EEXIST && replace_regular && lstat(to.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        std::rename(from.c_str(), to.c_str()) == 0)
        return to;
    for (int n = 2; err == EEXIST && n < 1000; ++n) {
        const std::string beside = numbered_beside(to, n);
        err = rename_without_replacing(from, beside);
        if (err == 0) return beside;
    }
    fail(ErrorCategory::Output, "cannot move '" + from + "' to '" + to + "': " + std::strerror(err));
}

}  // namespace vf
