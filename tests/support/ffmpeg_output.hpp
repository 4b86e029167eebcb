// What the tests of ffmpeg command lines (tests/cli/ffmpeg_*_test.cpp) read back: whether the
// ffmpeg command is here, and the frame lines of a framecrc or framemd5 file.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/run_command.hpp"

namespace vf::test {

inline bool ffmpeg_command_missing() { return run_command({"ffmpeg", "-version"}).exit_code != 0; }

// The per-frame lines of a framecrc or framemd5 file (no # header): stream, dts, pts, duration,
// size, checksum.
inline std::vector<std::string> frame_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::istringstream in(read_file(path));
    for (std::string l; std::getline(in, l);)
        if (!l.empty() && l[0] != '#') lines.push_back(l);
    return lines;
}

}  // namespace vf::test
