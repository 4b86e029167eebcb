#include "app/run/retention_keeper.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include <algorithm>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>

namespace vf {

bool disk_space(const std::string& folder, int64_t* free_bytes, int64_t* total_bytes) {
    struct statvfs s {};
    if (statvfs(folder.c_str(), &s) != 0) return false;
    *free_bytes = static_cast<int64_t>(s.f_bavail) * static_cast<int64_t>(s.f_frsize);
    *total_bytes = static_cast<int64_t>(s.f_blocks) * static_cast<int64_t>(s.f_frsize);
    return true;
}

namespace {

// The CPU time the calling thread has used: what a look itself costs, which a busy machine's
// waits do not stretch (measured by the clock, a starved look would space the next ones out just
// when recordings fill the disk as fast as ever).
std::chrono::nanoseconds thread_cpu_time() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

}  // namespace

RetentionKeeper::RetentionKeeper(FreeSpaceFloor floor, std::chrono::milliseconds period) : floor_(floor), period_(period) {
    thread_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        std::chrono::steady_clock::duration wait = period_;
        while (!wake_.wait_for(lock, wait, [this] { return stop_; })) {
            lock.unlock();
            const std::chrono::nanoseconds started = thread_cpu_time();
            const bool backlog = look();
            wait = backlog ? period_ : wait_after_look(thread_cpu_time() - started);
            lock.lock();
        }
    });
}

// A look reads every file name of the recordings' folders, which grow for months when nothing
// limits them (200,000 files: about half a second of a core): a look that used D of CPU waits
// 100 D before the next, so the keeper costs about 1% of a core however full the folders, and at
// most a minute. A look that left a backlog (more to delete than one look deletes) is followed
// after the period.
std::chrono::steady_clock::duration RetentionKeeper::wait_after_look(std::chrono::steady_clock::duration took) const {
    using Duration = std::chrono::steady_clock::duration;
    constexpr int kWaitPerLookTime = 100;
    const Duration longest = std::max<Duration>(period_, std::chrono::minutes(1));
    return std::clamp<Duration>(took * kWaitPerLookTime, period_, longest);
}

RetentionKeeper::~RetentionKeeper() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void RetentionKeeper::add(std::shared_ptr<RecordingRetention> retention) {
    std::lock_guard<std::mutex> lock(mutex_);
    retentions_.push_back(std::move(retention));
}

void RetentionKeeper::remove(const RecordingRetention* retention) {
    std::lock_guard<std::mutex> lock(mutex_);
    retentions_.erase(std::remove_if(retentions_.begin(), retentions_.end(), [&](const auto& r) { return r.get() == retention; }),
                      retentions_.end());
}

bool RetentionKeeper::look() {
    std::vector<std::shared_ptr<RecordingRetention>> all;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        all = retentions_;
    }
    std::lock_guard<std::mutex> one_at_a_time(look_mutex_);
    bool backlog = false;
    for (const auto& r : all) backlog = r->enforce() || backlog;
    if (floor_.set()) backlog = keep_floor(all) || backlog;
    return backlog;
}

bool RetentionKeeper::keep_floor(const std::vector<std::shared_ptr<RecordingRetention>>& all) {
    // The recordings by the disk they are on: the floor is each disk's.
    std::map<dev_t, std::vector<RecordingRetention*>> by_disk;
    std::map<dev_t, std::string> folder_of;
    for (const auto& r : all) {
        struct stat st {};
        if (stat(r->folder().c_str(), &st) != 0) continue;
        by_disk[st.st_dev].push_back(r.get());
        folder_of.emplace(st.st_dev, r->folder());
    }
    bool backlog = false;
    for (const auto& [disk, recordings] : by_disk) backlog = keep_floor_of(folder_of[disk], recordings) || backlog;
    return backlog;
}

// One disk below its floor: the oldest finished recordings of any stream on it go first, found in
// one look at each stream's files (the oldest few of each), however many the folders hold.
bool RetentionKeeper::keep_floor_of(const std::string& folder, const std::vector<RecordingRetention*>& recordings) {
    int64_t free_bytes = 0, total = 0;
    if (!disk_space(folder, &free_bytes, &total)) return false;
    const int64_t need = floor_.bytes_of(total);
    if (free_bytes >= need) {
        short_folders_.erase(folder);
        return false;
    }
    // Each stream's oldest `each`, merged: up to the newest file of a stream whose list was full
    // (the horizon), the merged order is the disk's own.
    const size_t each = std::max<size_t>(1, RecordingRetention::kDeletedPerLook / recordings.size());
    std::vector<std::pair<SegmentFile, RecordingRetention*>> oldest;
    std::optional<SegmentFile> horizon;
    for (RecordingRetention* r : recordings) {
        std::vector<SegmentFile> files = r->oldest_finished(each);
        if (files.size() == each && (!horizon || written_before(files.back(), *horizon))) horizon = files.back();
        for (SegmentFile& f : files) oldest.emplace_back(std::move(f), r);
    }
    if (oldest.empty()) {
        if (short_folders_.insert(folder).second)
            spdlog::warn("the disk of '{}' has {} free, below --min-free ({}), and no finished recording is left to delete", folder,
                         format_bytes(free_bytes), format_bytes(need));
        return false;
    }
    std::sort(oldest.begin(), oldest.end(), [](const auto& a, const auto& b) { return written_before(a.first, b.first); });
    for (const auto& [file, from] : oldest) {
        if (horizon && written_before(*horizon, file)) return true;  // beyond what every stream listed: next look
        const std::string why = "the disk of '" + folder + "' had " + format_bytes(free_bytes) + " free, below --min-free " + format_bytes(need);
        if (!from->remove(file, why)) return false;
        if (!disk_space(folder, &free_bytes, &total) || free_bytes >= need) return false;
    }
    return horizon.has_value();  // every listed file gone and still below: a full list may have more
}

}  // namespace vf
