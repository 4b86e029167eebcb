// How FFmpeg reaches the files of one output. Every file its muxers open (the file itself, each
// --segment file, HLS segments, init segment and playlist, and their temporary names) goes through
// AVFormatContext::io_open / io_close2 here, which the segment and HLS muxers hand on to the
// muxers inside them; each is an AVIOContext over a descriptor OwnedFiles opened (created with
// O_EXCL and O_NOFOLLOW, or this output's own file written again).
//
// The HLS muxer writes each segment and each playlist under NAME.tmp and then renames it to NAME
// itself (rename(2), which would replace whatever is there). When NAME.tmp is closed, it is
// published here first: linked to NAME when the name is free (link(2) never replaces), or swapped
// with NAME when that is this output's own file (a playlist rewritten; RENAME_EXCHANGE, checked
// afterwards). NAME.tmp is then left as a second name of the same file, so FFmpeg's rename does
// nothing, and is removed at the next open or close. A file of someone else's at NAME is never
// replaced: NAME.tmp is moved aside (kept as NAME-2 ...) and the output fails with the reason.
#pragma once

#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "encode/owned_files.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

class OutputFileIo {
public:
    // `publishes_temporaries`: files named *.tmp are the HLS muxer's (see above).
    OutputFileIo(bool overwrite, bool publishes_temporaries);
    ~OutputFileIo();
    OutputFileIo(const OutputFileIo&) = delete;
    OutputFileIo& operator=(const OutputFileIo&) = delete;

    // Makes every file `mux` (and the muxers inside it) opens go through this object, which must
    // outlive it.
    void install(AVFormatContext* mux);
    // Opens `path` (AVIO_FLAG_WRITE or AVIO_FLAG_READ) into *pb: 0 or an AVERROR, with refusal()
    // saying why.
    int open(const std::string& path, int flags, AVIOContext** pb);
    // Flushes, closes and frees what open() made: 0 or the first write or close error.
    int close(AVIOContext* pb);

    // The first refusal met (FFmpeg passes on only an error code, and ignores some failures to
    // close); empty when none.
    const std::string& refusal() const { return refusal_; }
    OwnedFiles& files() { return files_; }
    // The last two files opened for writing, newest last: a --segment series' segment being
    // written and the one before it (what a failure can leave cut short).
    const std::vector<std::string>& newest_written() const { return newest_written_; }
    // Removes the NAME.tmp names left as second names of published files (also done at the next
    // open or close, and by the destructor).
    void remove_temporary_names();

private:
    static int io_open(AVFormatContext* s, AVIOContext** pb, const char* url, int flags, AVDictionary** options);
    static int io_close2(AVFormatContext* s, AVIOContext* pb);
    void publish_temporary(const std::string& temporary);
    bool replace_own(const std::string& temporary, const std::string& name);
    void keep_aside(const std::string& temporary, const std::string& name, const std::string& why);
    void leave_second_name(const std::string& temporary);
    void refuse(const std::string& why);

    OwnedFiles files_;
    bool publishes_temporaries_;
    std::string refusal_;
    std::vector<std::string> newest_written_;
    // NAME.tmp names left as second names of published files, with the file they name.
    std::vector<std::pair<std::string, std::pair<dev_t, ino_t>>> second_names_;
};

}  // namespace vf
