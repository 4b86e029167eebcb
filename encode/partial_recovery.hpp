// What a killed run leaves of a single-file recording: OUT.partial, the name a file has until it
// is finished or (a fragmented MP4 or MKV) until its first fragment is written. When a recorder
// starts again, a .partial that holds video a demuxer can read is kept under a name of its own,
// beside the output (OUT-recovered-YYYYmmdd-HHMMSS.EXT, from its last write); one that holds none
// (killed before its first fragment, or a plain MP4 without its index) is removed, since nothing
// can play it and the next run would write over it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vf {

struct PartialRecovery {
    std::string partial;      // OUT.partial
    std::string kept_as;      // the name it was given; empty when it was removed
    int64_t video_packets = 0;
    double seconds = 0;       // of video it holds
    std::string why_removed;  // when removed: what a demuxer said
};

// Looks for `output`.partial and recovers or removes it (logged). Nothing when there is none.
std::optional<PartialRecovery> recover_partial_recording(const std::string& output);

}  // namespace vf
