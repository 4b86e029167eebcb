// Recordings cut short by a full disk, a failure or a killed process. The write that found no room ended the file inside a
// fragment (or its muxer opened the next segment before the error surfaced, leaving a file with
// a header and nothing else): players then report the file as damaged. A fragmented MP4 is made
// whole again by cutting it after its last complete fragment, and removed when not one fragment
// is complete (a header alone: nothing can play it). Other containers are left as written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace vf {

// The video packets a demuxer reads from `path` and the time they span; an error when it cannot
// open the file, finds no video stream or reads no video packet.
struct ReadableVideo {
    int64_t packets = 0;
    double seconds = 0;
    std::string error;
};
ReadableVideo readable_video(const std::string& path);

struct CutRepair {
    enum class Outcome { Whole, Trimmed, Removed, Left } outcome = Outcome::Left;
    int64_t bytes_before = 0, bytes_after = 0;
    std::string why;  // Removed: what a demuxer said; Left: why nothing was done
};

// How much of `path`, an MP4 cut anywhere, is whole: the end of its last complete top-level box
// that does not open an unfinished fragment. 0 when nothing is (fewer than 8 bytes, or a header
// cut before its moov); -1 when it is not an MP4 (no leading ftyp) or is a plain MP4 without its
// index, which only recovery tools can read.
int64_t mp4_whole_length(const std::string& path);

// Whether `path` begins with a whole MP4 header (an ftyp box, then a complete moov): what a
// recorder has written once its muxer started.
bool mp4_header_complete(const std::string& path);

// Makes one recording cut short whole (see above), logged with its cause ("the full disk").
CutRepair repair_cut_recording(const std::string& path, const char* cause = "the full disk");

// Repairs the --segment series (`pattern`: segment_pattern(output)) a killed run left (SIGKILL, a
// power cut), before a new run adds to it:
// its newest two files, the one being written and one its muxer had just opened (a header alone).
// Files that do not begin with a whole MP4 header are never touched: nothing shows a recorder
// wrote them (a stream's pattern may match another program's files).
void repair_segments_left_by_a_killed_run(const std::string& pattern);

}  // namespace vf
