#include "encode/output_file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/error.hpp"

namespace vf {

namespace {

// What an AVIOContext made here carries as its opaque.
struct OpenOutputFile {
    int fd = -1;
    std::string path;
};

constexpr int kBufferBytes = 64 * 1024;
constexpr const char* kTemporarySuffix = ".tmp";

#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WrittenBytes = const uint8_t*;
#else
using WrittenBytes = uint8_t*;
#endif

std::string without_file_scheme(const char* url) {
    const std::string u = url ? url : "";
    return u.rfind("file:", 0) == 0 ? u.substr(5) : u;
}

bool is_temporary(const std::string& path) {
    const size_t n = std::strlen(kTemporarySuffix);
    return path.size() > n && path.compare(path.size() - n, n, kTemporarySuffix) == 0;
}

int write_all(void* opaque, WrittenBytes buf, int size) {
    const int fd = static_cast<OpenOutputFile*>(opaque)->fd;
    for (int done = 0; done < size;) {
        const ssize_t n = ::write(fd, buf + done, static_cast<size_t>(size - done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return AVERROR(errno);
        done += static_cast<int>(n);
    }
    return size;
}

int read_some(void* opaque, uint8_t* buf, int size) {
    const int fd = static_cast<OpenOutputFile*>(opaque)->fd;
    for (;;) {
        const ssize_t n = ::read(fd, buf, static_cast<size_t>(size));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return AVERROR(errno);
        return n == 0 ? AVERROR_EOF : static_cast<int>(n);
    }
}

int64_t seek_to(void* opaque, int64_t offset, int whence) {
    const int fd = static_cast<OpenOutputFile*>(opaque)->fd;
    if (whence & AVSEEK_SIZE) {
        struct stat st {};
        return fstat(fd, &st) == 0 ? static_cast<int64_t>(st.st_size) : AVERROR(errno);
    }
    const off_t at = lseek(fd, static_cast<off_t>(offset), whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : static_cast<int64_t>(at);
}

}  // namespace

OutputFileIo::OutputFileIo(bool overwrite, bool publishes_temporaries)
    : files_(overwrite), publishes_temporaries_(publishes_temporaries) {}

OutputFileIo::~OutputFileIo() { remove_temporary_names(); }

void OutputFileIo::install(AVFormatContext* mux) {
    mux->opaque = this;
    mux->io_open = &OutputFileIo::io_open;
#if LIBAVFORMAT_VERSION_MAJOR < 61
    mux->io_close = nullptr;  // FFmpeg calls io_close2 when io_close is unset
#endif
    mux->io_close2 = &OutputFileIo::io_close2;
}

void OutputFileIo::refuse(const std::string& why) {
    if (refusal_.empty()) refusal_ = why;
}

int OutputFileIo::open(const std::string& path, int flags, AVIOContext** pb) {
    remove_temporary_names();
    *pb = nullptr;
    // After a refusal nothing more is written: the output is failing, with that reason.
    if (!refusal_.empty() && (flags & AVIO_FLAG_WRITE)) return AVERROR(EEXIST);
    const bool writing = (flags & AVIO_FLAG_WRITE) != 0;
    const OpenedFile opened = writing ? files_.open_for_write(path) : files_.open_for_read(path);
    if (opened.fd < 0) {
        refuse(opened.why);
        return AVERROR(opened.error);
    }
    if (writing) {
        newest_written_.push_back(path);
        if (newest_written_.size() > 2) newest_written_.erase(newest_written_.begin());
    }
    auto* file = new OpenOutputFile{opened.fd, path};  // freed by close()
    auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferBytes));
    *pb = buffer ? avio_alloc_context(buffer, kBufferBytes, writing ? 1 : 0, file, writing ? nullptr : &read_some,
                                      writing ? &write_all : nullptr, &seek_to)
                 : nullptr;
    if (!*pb) {
        av_free(buffer);
        ::close(file->fd);
        delete file;
        return AVERROR(ENOMEM);
    }
    return 0;
}

int OutputFileIo::close(AVIOContext* pb) {
    if (!pb) return 0;
    auto* file = static_cast<OpenOutputFile*>(pb->opaque);
    int err = 0;
    if (pb->write_flag) {
        avio_flush(pb);
        err = pb->error;
    }
    av_freep(&pb->buffer);
    avio_context_free(&pb);
    if (::close(file->fd) != 0 && err == 0) err = AVERROR(errno);
    const std::string path = file->path;
    delete file;
    if (err == 0 && publishes_temporaries_ && is_temporary(path) && files_.owns(path)) publish_temporary(path);
    else remove_temporary_names();
    return err;
}

int OutputFileIo::io_open(AVFormatContext* s, AVIOContext** pb, const char* url, int flags, AVDictionary** /*options*/) {
    return static_cast<OutputFileIo*>(s->opaque)->open(without_file_scheme(url), flags, pb);
}

int OutputFileIo::io_close2(AVFormatContext* s, AVIOContext* pb) { return static_cast<OutputFileIo*>(s->opaque)->close(pb); }

void OutputFileIo::publish_temporary(const std::string& temporary) {
    remove_temporary_names();
    const std::string name = temporary.substr(0, temporary.size() - std::strlen(kTemporarySuffix));
    if (::link(temporary.c_str(), name.c_str()) == 0) {  // the name was free: link() never replaces
        files_.same_file(temporary, name);
        leave_second_name(temporary);
        return;
    }
    const int link_error = errno;
    struct stat st {};
    if (lstat(name.c_str(), &st) != 0) {
        // A filesystem without hard links: the name is free now, and FFmpeg's rename takes it.
        if (errno != ENOENT) keep_aside(temporary, name, std::string("cannot publish it: ") + std::strerror(link_error));
        return;
    }
    if (files_.owns(name) || (files_.overwrite() && S_ISREG(st.st_mode))) {
        if (!replace_own(temporary, name))
            keep_aside(temporary, name, "it was replaced by a file vfilter did not write; refusing to overwrite it");
        return;
    }
    keep_aside(temporary, name,
               S_ISLNK(st.st_mode) ? "it is a symbolic link; vfilter never writes through one"
                                   : "it exists and was not written by vfilter; refusing to overwrite it");
}

// Puts `temporary` in place of this output's own file `name`, swapping the two (the file swapped
// out is checked afterwards, and swapped back when it turns out not to be this output's). False
// when what was at `name` is someone else's: it is back at `name`, untouched.
bool OutputFileIo::replace_own(const std::string& temporary, const std::string& name) {
    if (renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, name.c_str(), RENAME_EXCHANGE) != 0)
        return true;  // no RENAME_EXCHANGE here: FFmpeg's rename replaces the file just checked
    struct stat st {};
    const bool own = lstat(temporary.c_str(), &st) == 0 && (files_.holds(temporary, name) || (files_.overwrite() && S_ISREG(st.st_mode)));
    if (!own) {
        renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, name.c_str(), RENAME_EXCHANGE);
        return false;
    }
    files_.same_file(temporary, name);
    ::unlink(temporary.c_str());  // the old version
    if (::link(name.c_str(), temporary.c_str()) == 0) leave_second_name(temporary);
    return true;
}

// FFmpeg renames `temporary` to its name next: as a second name of the same file, that rename
// does nothing.
void OutputFileIo::leave_second_name(const std::string& temporary) {
    struct stat st {};
    if (lstat(temporary.c_str(), &st) == 0) second_names_.push_back({temporary, {st.st_dev, st.st_ino}});
}

void OutputFileIo::remove_temporary_names() {
    for (const auto& [path, id] : second_names_) {
        struct stat st {};
        if (lstat(path.c_str(), &st) == 0 && st.st_dev == id.first && st.st_ino == id.second) ::unlink(path.c_str());
    }
    second_names_.clear();
}

// The muxer's file is kept under a free name beside `name` (never lost, never over anything), so
// that FFmpeg's rename finds nothing to move; the output fails with the reason.
void OutputFileIo::keep_aside(const std::string& temporary, const std::string& name, const std::string& why) {
    std::string kept;
    try {
        kept = move_without_replacing(temporary, name, false);
    } catch (const Error&) {
        ::unlink(temporary.c_str());  // FFmpeg would rename it over `name`
    }
    const std::string reason = "output '" + name + "': " + why;
    if (!kept.empty()) spdlog::warn("{}; what vfilter wrote for it is kept as '{}'", reason, kept);
    refuse(reason);
}

}  // namespace vf
