// A recording as a player meets it: decoded by FFmpeg with every error line counted, and its
// video timestamps read back. Every test that writes a recording checks it through here, so a
// file with a repeated or decreasing timestamp, or one a decoder complains about, fails the test
// that wrote it.
#pragma once

#include <string>

namespace vf::test {

struct RecordingCheck {
    int frames = -1;     // video frames that decoded
    bool clean = false;  // no error line from `ffmpeg -v error`, timestamps increase, frames > 0
    std::string errors;  // what is wrong, for the failure message
};

// timing=false: decoding errors only, for a file another program wrote without a frame rate
// (its timestamps say nothing of vfilter's).
RecordingCheck check_recording(const std::string& path, bool timing = true);

// Video stamped by when its frames arrived (serve's live.mp4): decoding errors, and timestamps
// that never repeat or go back, but not the frame-rate grid of a recording: after a stall two
// frames may arrive a millisecond apart, and are stamped so.
RecordingCheck check_arrival_timed_video(const std::string& path);

}  // namespace vf::test
