#include "encode/output_target.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"
#include "encode/hls_output.hpp"
#include "media/protocols.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

OutputKind output_kind(const std::string& path) {
    if (path == "-" || path == "pipe:1" || path == "pipe:") return OutputKind::Stdout;
    const std::string p = input_protocol(path);
    if (p == "file") return OutputKind::File;
    if (p == "rtsp" || p == "rtsps" || p == "rtmp" || p == "rtmps" || p == "srt" || p == "udp" || p == "tcp")
        return OutputKind::Network;
    fail(ErrorCategory::Usage, "output '" + path + "': vfilter writes files, '-' (stdout) and rtsp://, rtmp://, srt://, "
                               "udp://, tcp:// URLs, not '" + p + "'");
}

// strftime fields name segments by their start time (FFmpeg's segment muxer, strftime=1).
// %d is left out: it is the segment number's field (as in rec-%d.mp4).
bool dated_pattern(const std::string& pattern) {
    for (const char* f : {"%Y", "%y", "%m", "%H", "%M", "%S", "%s", "%F", "%T"})
        if (pattern.find(f) != std::string::npos) return true;
    return false;
}

std::string segment_pattern(const std::string& path) {
    // %d-style fields number the segments, strftime fields (%Y, %H, ...) date them.
    if (path.find('%') != std::string::npos) return path;
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    const size_t at = (dot == std::string::npos || (slash != std::string::npos && dot < slash)) ? path.size() : dot;
    return path.substr(0, at) + "-%05d" + path.substr(at);
}

double srt_close_delay_s(const std::string& url) {
    if (input_protocol(url) != "srt") return 0;
    const size_t query = url.find('?');
    double latency_s = 0;
    if (query != std::string::npos) {
        for (size_t at = query + 1; at < url.size();) {
            const size_t end = std::min(url.find('&', at), url.size());
            const std::string pair = url.substr(at, end - at);
            const size_t eq = pair.find('=');
            const std::string key = pair.substr(0, eq);
            if (eq != std::string::npos && (key == "latency" || key == "peerlatency" || key == "rcvlatency")) {
                char* rest = nullptr;
                const double us = std::strtod(pair.c_str() + eq + 1, &rest);
                if (rest && *rest == '\0' && us > 0) latency_s = std::max(latency_s, us / 1e6);
            }
            at = end + 1;
        }
    }
    return 1.0 + latency_s;
}

namespace {

// What a link points to is not the output's to write: not even -y writes through one.
void refuse_symbolic_link(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        fail(ErrorCategory::Output, "output '" + path + "' is a symbolic link; vfilter never writes through one, even with -y "
                                    "(remove it, or name the file it points to)");
}

}  // namespace

void check_output_path(const OutputOptions& o) {
    if (o.path.empty()) fail(ErrorCategory::Usage, "no output given: use --out FILE (or --out null to discard)");
    if (output_kind(o.path) != OutputKind::File) return;
    std::string path = o.path;
    // A live HLS playlist goes on where it ended (its numbering too): a restarted recorder
    // overwrites nothing.
    if (is_hls_output(o) && o.live && !o.overwrite) return refuse_symbolic_link(path);
    if (o.segment_s > 0) {  // the first segment stands for the series
        const std::string pattern = segment_pattern(o.path);
        char first[4096];
        // Dated names are new each time. A live recording's numbered series goes on after the
        // highest number on disk (choose_muxer), so a restarted recorder overwrites nothing;
        // a file's series is protected like a single file.
        if (dated_pattern(pattern) || (o.live && !o.overwrite) || av_get_frame_filename(first, sizeof first, pattern.c_str(), 0) < 0)
            return;
        path = first;
    }
    struct stat out_st {};
    if (stat(path.c_str(), &out_st) != 0) {  // nothing there, or a link to nothing
        refuse_symbolic_link(path);
        return;
    }
    struct stat in_st {};
    if (!o.input_path.empty() && stat(o.input_path.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino)
        fail(ErrorCategory::Output, "output '" + o.path + "' is the input file; refusing to overwrite the source");
    refuse_symbolic_link(path);
    if (S_ISDIR(out_st.st_mode)) fail(ErrorCategory::Output, "output '" + o.path + "' is a directory; give a file name");
    if (!o.overwrite) fail(ErrorCategory::Output, "output '" + path + "' already exists; pass -y to overwrite it");
}

}  // namespace vf
