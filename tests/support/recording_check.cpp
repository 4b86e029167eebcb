#include "support/recording_check.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>
#include <unistd.h>

#include "support/run_command.hpp"

namespace vf::test {
namespace {

// The GPU machines carry a minimal static FFmpeg without the framemd5 and null muxers: there the
// frames are counted, and decoding errors caught, by ffprobe decoding every frame.
bool ffmpeg_has_framemd5() {
    static const bool has = run_command({"ffmpeg", "-hide_banner", "-muxers"}, 30).output.find("framemd5") != std::string::npos;
    return has;
}

void count_with_ffprobe(const std::string& path, RecordingCheck& c) {
    const CommandResult r = run_command({"ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                         "stream=nb_read_frames", "-of", "csv=p=0", path}, 120);
    c.frames = 0;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos) c.frames = std::stoi(line);
        else if (!line.empty()) c.errors += line + "\n";
    }
    if (r.exit_code != 0 && c.errors.empty()) c.errors = "ffprobe exit " + std::to_string(r.exit_code);
}

void decode_with_ffmpeg(const std::string& path, bool timing, RecordingCheck& c) {
    char md5[] = "/tmp/vfilter-recording-XXXXXX";
    const int fd = mkstemp(md5);
    if (fd >= 0) close(fd);
    // The frames' checksums go to a file, so what comes back on the terminal is the error lines
    // alone; every decoded frame is summed (passthrough: ffmpeg's default for this output drops a
    // frame that comes with two others inside one frame period, as arrival-timed frames may on a
    // loaded machine, and the count would be short). The null output takes the frames at the
    // stream's frame rate, as players and `ffmpeg -f null` do: two frames a tick apart are an
    // error there.
    std::vector<std::string> command = {"ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-map", "0:v:0",
                                        "-fps_mode", "passthrough", "-f", "framemd5", md5};
    if (timing) command.insert(command.end(), {"-map", "0:v:0", "-f", "null", "-"});
    const CommandResult decoded = run_command(command, 120);
    c.frames = 0;
    std::ifstream sums(md5);
    for (std::string line; std::getline(sums, line);) c.frames += !line.empty() && line[0] != '#';
    std::remove(md5);
    c.errors = decoded.output;
    if (decoded.exit_code != 0 && c.errors.empty()) c.errors = "ffmpeg exit " + std::to_string(decoded.exit_code);
}

// Timestamps: no two video packets at one presentation time, and decode times (where the
// container stores them: Matroska keeps presentation times only, and its demuxer's guessed
// decode times may step back across B-frames) strictly increasing.
void check_timestamps(const std::string& path, RecordingCheck& c) {
    const CommandResult format =
        run_command({"ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "default=nw=1:nk=1", path}, 60);
    const bool stores_dts = format.output.find("matroska") == std::string::npos;
    const CommandResult probe = run_command(
        {"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", path}, 120);
    std::istringstream rows(probe.output);
    std::set<long long> seen_pts;
    long long last_dts = 0;
    bool first = true;
    int index = 0;
    for (std::string row; std::getline(rows, row); ++index) {
        const size_t comma = row.find(',');
        if (row.empty()) continue;
        if (comma == std::string::npos || !(std::isdigit(static_cast<unsigned char>(row[0])) || row[0] == '-' || row[0] == 'N')) {
            c.errors += "ffprobe: " + row + "\n";  // a complaint of ffprobe's, not a packet's times
            continue;
        }
        const std::string pts = row.substr(0, comma), dts = row.substr(comma + 1);
        if (pts != "N/A" && !pts.empty() && !seen_pts.insert(std::stoll(pts)).second)
            c.errors += "two video packets at one presentation time " + pts + " (packet " + std::to_string(index) + ")\n";
        if (!stores_dts || dts == "N/A" || dts.empty()) continue;
        const long long t = std::stoll(dts);
        if (!first && t <= last_dts)
            c.errors += "video decode times do not increase at packet " + std::to_string(index) + ": " + std::to_string(last_dts) +
                        " then " + dts + "\n";
        last_dts = t;
        first = false;
    }
}

}  // namespace

// grid: ffmpeg's null output at the stream's frame rate too (two frames a tick apart are an error
// there); timestamps: check_timestamps.
static RecordingCheck check(const std::string& path, bool grid, bool timestamps) {
    RecordingCheck c;
    if (ffmpeg_has_framemd5()) decode_with_ffmpeg(path, grid, c);
    else count_with_ffprobe(path, c);  // no null muxer there either: the timestamps below still are checked
    if (timestamps) check_timestamps(path, c);
    c.clean = c.errors.empty() && c.frames > 0;
    return c;
}

RecordingCheck check_arrival_timed_video(const std::string& path) { return check(path, false, true); }

RecordingCheck check_recording(const std::string& path, bool timing) { return check(path, timing, timing); }

}  // namespace vf::test
