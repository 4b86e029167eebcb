// The muxer of an output: the container named by --out-format, else by the file's extension,
// the protocol (rtsp; flv for rtmp; mpegts otherwise) or, for stdout, mpegts. Fragmented MP4
// options for crash-safe recordings, and FFmpeg's segment muxer around the container for
// --segment.
#pragma once

#include <string>

#include "encode/output_options.hpp"
#include "encode/output_target.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

struct MuxerChoice {
    const AVOutputFormat* muxer = nullptr;      // what FFmpeg writes with ("segment" for --segment)
    const AVOutputFormat* container = nullptr;  // what the streams are stored in
    AVDictionary* options = nullptr;            // for avformat_write_header

    MuxerChoice() = default;
    MuxerChoice(const MuxerChoice&) = delete;
    MuxerChoice& operator=(const MuxerChoice&) = delete;
    ~MuxerChoice() { av_dict_free(&options); }
};

// write_path: what FFmpeg writes (a segment pattern with strftime fields turns strftime on).
// Throws Usage for a container FFmpeg cannot write or cannot tell, or --segment on a non-file.
void choose_muxer(const OutputOptions& options, OutputKind kind, const std::string& write_path, MuxerChoice& out);

// Before anything is opened: throws Usage, in one line, when the output file's container cannot
// hold the video codec asked for (a .webm with the default H.264), naming a --codec this FFmpeg
// has that fits, or another extension where it has none.
void check_codec_fits_container(const OutputOptions& options, OutputKind kind);

}  // namespace vf
