// The files one output has created, and the only ways it writes, renames and removes files.
// A file is created exclusively (O_EXCL) and never through a symbolic link (O_NOFOLLOW); it is
// remembered by device and inode, so the output may write it again (a playlist rewritten) while
// a file it did not create, or one that replaced its own under the same name, is never written,
// truncated, renamed over or removed. `overwrite` (-y, the operator's) lets an existing regular
// file be replaced; a symbolic link is refused even then.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <utility>

namespace vf {

// An open descriptor, or why there is none: `error` is an errno value, `why` a one-line reason
// that names the path.
struct OpenedFile {
    int fd = -1;
    int error = 0;
    std::string why;
};

class OwnedFiles {
public:
    explicit OwnedFiles(bool overwrite) : overwrite_(overwrite) {}

    // O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0666 less the umask. An existing file
    // is truncated when this output created it, replaced by a new one when overwrite is set and
    // it is a regular file, and refused otherwise.
    OpenedFile open_for_write(const std::string& path);
    // Only a file this output created (FFmpeg reads back what it wrote, e.g. MP4's faststart).
    OpenedFile open_for_read(const std::string& path) const;

    // Whether what is at `path` now (not followed if a link) is the file this output created
    // there. Files are told apart by device and inode, remembered per name: an inode number that
    // a file system hands out again after this output's file under another name was deleted
    // (tmpfs does at once) is not taken for this output's.
    bool owns(const std::string& path) const { return holds(path, path); }
    // Whether what is at `path` now is the file this output created under the name `as`.
    bool holds(const std::string& path, const std::string& as) const;
    // `to` now names the file this output created as `from` (linked or renamed there).
    void same_file(const std::string& from, const std::string& to);
    // Takes a regular file (never a link) as this output's own: the playlist a restarted live
    // HLS recording goes on in. False when there is none or it is not a regular file. Such a
    // file may be renamed or removed as the output's own, but is never written into: opened
    // for writing, its name is unlinked and a new file made (it may be a hard link planted to a
    // file elsewhere).
    bool adopt(const std::string& path);
    // Removes `path` when it is this output's own; anything else under that name is left.
    void remove_if_owned(const std::string& path) const;

    bool overwrite() const { return overwrite_; }

private:
    using FileId = std::pair<dev_t, ino_t>;
    OpenedFile refuse_existing(const std::string& path);
    void remember(const std::string& path, int fd);
    void forget_gone();

    bool overwrite_;
    std::map<std::string, FileId> created_;
    std::set<std::string> adopted_;  // names in created_ taken back by adopt(), not made here
};

// Renames `from` to `to` unless something is at `to` (renameat2 RENAME_NOREPLACE; a filesystem
// without it gets link() and unlink(), which never replace either). Returns 0 or an errno value
// (EEXIST: the name is taken).
int rename_without_replacing(const std::string& from, const std::string& to);

// Moves `from` to `to`, or when that name is taken and may not be replaced, beside it as
// "name-2.ext", "name-3.ext", ... (never over anything). Returns the name it has now; throws
// Error(Output) when it cannot be moved at all (it is then still at `from`).
// `replace_regular`: a regular file at `to` is replaced (-y); a link never is.
std::string move_without_replacing(const std::string& from, const std::string& to, bool replace_regular);

}  // namespace vf
