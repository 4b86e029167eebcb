#include "encode/recording_retention.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "config/quantities.hpp"

namespace vf {

namespace fs = std::filesystem;

RecordingRetention::RecordingRetention(std::string stream, const std::string& pattern, RetentionLimits limits)
    : RecordingRetention(std::move(stream), SegmentSeries(pattern), std::nullopt, limits) {}

RecordingRetention::RecordingRetention(std::string stream, std::optional<SegmentSeries> segments, std::optional<SegmentSeries> clips,
                                       RetentionLimits limits)
    : stream_(std::move(stream)), segments_(std::move(segments)), clips_(std::move(clips)), limits_(limits) {
    if (!segments_ && !clips_) fail(ErrorCategory::Internal, "a recording's retention without files to keep");
}

// Every file of the segment series but the newest, which is being written, and every clip:
// counted, and the `oldest` first of them kept. Holds at most that many files however many the
// folder has: serve looks every second, and a folder fills for months when nothing limits it.
RecordingRetention::FinishedLook RecordingRetention::look(size_t oldest) const {
    FinishedLook out;
    FileSelection first(oldest, FileSelection::Keep::Oldest);
    const auto finished = [&](SegmentFile&& f) {
        ++out.count;
        out.bytes += f.bytes;
        first.offer(std::move(f));
    };
    if (segments_) {
        std::optional<SegmentFile> newest;  // held back until a newer one is found
        segments_->for_each_file([&](SegmentFile&& f) {
            if (newest && written_before(f, *newest)) return finished(std::move(f));
            if (newest) finished(std::move(*newest));
            newest = std::move(f);
        });
    }
    if (clips_) clips_->for_each_file(finished);
    out.oldest = first.take();
    return out;
}

bool RecordingRetention::enforce() {
    const FinishedLook files = look(kDeletedPerLook);
    int64_t kept_files = files.count, kept_bytes = files.bytes;
    size_t deleted = 0;
    const auto now = fs::file_time_type::clock::now();
    for (const SegmentFile& f : files.oldest) {
        const double age_s = std::chrono::duration<double>(now - f.written).count();
        const bool too_old = limits_.max_age_s > 0 && age_s > limits_.max_age_s;
        const bool too_big = limits_.max_bytes > 0 && kept_bytes > limits_.max_bytes;
        if (!too_old && !too_big) break;
        if (!remove(f, too_old ? "older than retain" : "beyond retain-size")) break;  // the rest at the next look
        ++deleted;
        --kept_files;
        kept_bytes -= f.bytes;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.kept_files = kept_files;
    counts_.kept_bytes = kept_bytes;
    return deleted == kDeletedPerLook && kept_files > 0;
}

std::vector<SegmentFile> RecordingRetention::oldest_finished(size_t count) const { return look(count).oldest; }

bool RecordingRetention::remove(const SegmentFile& file, const std::string& why) {
    std::error_code ec;
    if (!fs::remove(file.path, ec)) {
        if (ec) spdlog::warn("{}cannot delete old recording '{}': {}", who(), file.path, ec.message());
        return false;
    }
    spdlog::info("{}deleted recording '{}' ({}, {})", who(), file.path, format_bytes(file.bytes), why);
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.deleted_files;
    counts_.deleted_bytes += file.bytes;
    counts_.kept_files = std::max<int64_t>(0, counts_.kept_files - 1);
    counts_.kept_bytes = std::max<int64_t>(0, counts_.kept_bytes - file.bytes);
    return true;
}

std::string RecordingRetention::who() const { return stream_.empty() ? "" : "stream '" + stream_ + "': "; }

RetentionCounts RecordingRetention::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

}  // namespace vf
