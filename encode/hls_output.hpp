// HLS outputs (-o name.m3u8): a playlist and its segments beside it with clean names
// (name-00001.ts, or name-00001.m4s after name-init.mp4), written by FFmpeg's hls muxer with the
// options chosen here: each segment under a temporary name until complete; for live inputs a
// rolling window whose older segments are deleted, a restarted recorder appending to its playlist;
// for files the whole list.
#pragma once

#include <string>
#include <vector>

#include "encode/output_options.hpp"

extern "C" {
#include <libavutil/dict.h>
}

namespace vf {

// Whether the output is an HLS playlist: an .m3u8 file name, or --out-format hls.
bool is_hls_output(const OutputOptions& options);

// The segments of a playlist, beside it: "dir/name-%05d.ts" (or .m4s) for "dir/name.m3u8" ('%' in
// the name kept as it is).
std::string hls_segment_pattern(const std::string& playlist, bool fmp4);
// The init segment of an fMP4 playlist, as the playlist names it: "name-init.mp4".
std::string hls_init_name(const std::string& playlist);

// The hls muxer's options for this output into `d`. For a live output whose playlist exists (a
// restart), segments left on the disk older than the playlist's first are deleted first: the muxer
// only deletes what falls out of the window while it runs.
void set_hls_options(const OutputOptions& options, const std::string& playlist, AVDictionary** d);

// The files of a playlist's series now on disk that the hls muxer writes again when a live
// recording goes on in it: the playlist, the fMP4 init segment, the segments (a killed run may
// have left one not yet listed) and the temporary names of all of them. Full paths.
std::vector<std::string> hls_series_files(const std::string& playlist, bool fmp4);

// Deletes the playlist's segment files (name-NNNNN.ts / .m4s beside it) numbered below the first
// it lists; returns how many. Nothing when the playlist lists none.
int delete_unlisted_hls_segments(const std::string& playlist, bool fmp4);

}  // namespace vf
