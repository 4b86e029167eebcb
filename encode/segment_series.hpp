// The files a --segment recording has written, found on disk by its name pattern (rec-%03d.mp4,
// cam-%Y%m%d-%H%M%S.mp4): what retention counts and deletes, and where a numbered series goes on
// after a restart. Reading the folder again each time keeps it true across restarts and files
// removed by hand.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

namespace vf {

struct SegmentFile {
    std::string path;
    int64_t bytes = 0;
    std::filesystem::file_time_type written;  // last modification
};

// The order of a series: by last write, then by name.
bool written_before(const SegmentFile& a, const SegmentFile& b);

// The `limit` oldest (or newest) of the files offered to it, holding no more than `limit` at a
// time: what a look at a folder of a million recordings needs costs what a look at ten does.
class FileSelection {
public:
    enum class Keep { Oldest, Newest };
    FileSelection(size_t limit, Keep keep) : limit_(limit), keep_(keep) {}
    void offer(SegmentFile file);
    // The files kept, oldest first; the selection is empty afterwards.
    std::vector<SegmentFile> take();

private:
    bool first(const SegmentFile& a, const SegmentFile& b) const { return keep_ == Keep::Oldest ? written_before(a, b) : written_before(b, a); }
    size_t limit_;
    Keep keep_;
    std::vector<SegmentFile> heap_;  // the kept files; its front is the one to give up first
};

class SegmentSeries {
public:
    // `pattern`: segment_pattern(output path).
    explicit SegmentSeries(const std::string& pattern);
    // The clips around events a stream wrote into `folder` (encode/clip_file.hpp: clip_name):
    // every one is finished (one being written is still under its .partial name).
    static SegmentSeries clips(const std::string& folder);
    const std::string& folder() const { return folder_; }
    const std::string& pattern() const { return pattern_; }
    // Whether a file name (no folder) is one of the series'.
    bool matches(const std::string& file_name) const;
    // The series' regular files now in its folder, oldest first (by last write, then by name).
    // Holds them all: retention's looks use for_each_file with a FileSelection instead.
    std::vector<SegmentFile> files() const;
    // Calls `visit` with each of the series' regular files now in its folder, in the folder's order.
    void for_each_file(const std::function<void(SegmentFile&&)>& visit) const;
    // A numbered series: one past the highest number on disk (0 when none). A dated one: 0.
    int64_t next_number() const;

private:
    SegmentSeries() = default;
    std::string pattern_, folder_;
    bool numbered_ = false;
    std::regex name_;  // the file name; numbered: group 1 is the number
};

}  // namespace vf
