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

// Every file of the segment series but the newest, which is being written, and every clip.
std::vector<SegmentFile> RecordingRetention::finished() const {
    std::vector<SegmentFile> files;
    if (segments_) {
        files = segments_->files();
        if (!files.empty()) files.pop_back();
    }
    if (clips_) {
        std::vector<SegmentFile> clips = clips_->files();
        files.insert(files.end(), clips.begin(), clips.end());
        std::sort(files.begin(), files.end(), [](const SegmentFile& a, const SegmentFile& b) {
            return a.written != b.written ? a.written < b.written : a.path < b.path;
        });
    }
    return files;
}

void RecordingRetention::enforce() {
    const std::vector<SegmentFile> files = finished();
    int64_t total = 0;
    for (const SegmentFile& f : files) total += f.bytes;
    const auto now = fs::file_time_type::clock::now();
    size_t first_kept = 0;
    for (; first_kept < files.size(); ++first_kept) {
        const SegmentFile& f = files[first_kept];
        const double age_s = std::chrono::duration<double>(now - f.written).count();
        const bool too_old = limits_.max_age_s > 0 && age_s > limits_.max_age_s;
        const bool too_big = limits_.max_bytes > 0 && total > limits_.max_bytes;
        if (!too_old && !too_big) break;
        const std::string why = too_old ? "older than retain" : "beyond retain-size";
        if (remove(f, why)) total -= f.bytes;
        else break;  // could not delete it: leave the rest for the next look
    }
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.kept_files = static_cast<int64_t>(files.size() - first_kept);
    counts_.kept_bytes = total;
}

std::optional<SegmentFile> RecordingRetention::oldest_finished() const {
    const std::vector<SegmentFile> files = finished();
    if (files.empty()) return std::nullopt;
    return files.front();
}

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
