// Retention of one stream's --segment recordings and its clips around events (encode/clip_file.hpp):
// keep at most an age and/or a size of finished files, the oldest deleted first, segments and
// clips counted together. The newest file of the series is the one being written and is never
// touched (a clip being written is still under its .partial name); files already on disk when the
// recorder starts (a restart) count like any other.
// Thread-safe: the retention keeper applies it while the API reads its counts.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>
#include <string>

#include "encode/segment_series.hpp"

namespace vf {

struct RetentionLimits {
    double max_age_s = 0;    // 0: no age limit
    int64_t max_bytes = 0;   // 0: no size limit (finished files only)
};

struct RetentionCounts {
    int64_t deleted_files = 0, deleted_bytes = 0;  // since this recorder started
    int64_t kept_files = 0, kept_bytes = 0;        // finished files on disk at the last look
};

class RecordingRetention {
public:
    // `stream` names it in the log (empty for a single run); `pattern`: segment_pattern(output path).
    RecordingRetention(std::string stream, const std::string& pattern, RetentionLimits limits);
    // `segments` and/or `clips` (SegmentSeries::clips), at least one.
    RecordingRetention(std::string stream, std::optional<SegmentSeries> segments, std::optional<SegmentSeries> clips,
                       RetentionLimits limits);
    const std::string& stream() const { return stream_; }
    // Where it records: the segments' folder, else the clips'.
    const std::string& folder() const { return segments_ ? segments_->folder() : clips_->folder(); }
    const RetentionLimits& limits() const { return limits_; }

    // The most files one look deletes: a look holds no more than that many of a folder's files, so
    // a folder of months costs what a folder of minutes does; a longer backlog (a limit lowered on
    // a full folder) goes at that many a look.
    static constexpr size_t kDeletedPerLook = 1000;
    // Deletes the oldest finished files beyond the limits and counts what is kept. True when it
    // stopped at kDeletedPerLook with more beyond them (look again soon).
    bool enforce();
    // The `count` oldest finished files, oldest first (the free-space floor deletes them first).
    std::vector<SegmentFile> oldest_finished(size_t count) const;
    // Deletes one finished file of the series, logged with `why`, and counts it. False when it was
    // already gone or could not be deleted (the log says why).
    bool remove(const SegmentFile& file, const std::string& why);
    RetentionCounts counts() const;

private:
    struct FinishedLook {
        int64_t count = 0, bytes = 0;     // every finished file
        std::vector<SegmentFile> oldest;  // the first few of them, oldest first
    };
    std::string who() const;  // "stream 'NAME': " for the log
    FinishedLook look(size_t oldest) const;

    std::string stream_;
    std::optional<SegmentSeries> segments_, clips_;
    RetentionLimits limits_;
    mutable std::mutex mutex_;
    RetentionCounts counts_;
};

}  // namespace vf
