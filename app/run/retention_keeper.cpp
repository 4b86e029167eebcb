#include "app/run/retention_keeper.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <map>

#include <spdlog/spdlog.h>

namespace vf {

bool disk_space(const std::string& folder, int64_t* free_bytes, int64_t* total_bytes) {
    struct statvfs s {};
    if (statvfs(folder.c_str(), &s) != 0) return false;
    *free_bytes = static_cast<int64_t>(s.f_bavail) * static_cast<int64_t>(s.f_frsize);
    *total_bytes = static_cast<int64_t>(s.f_blocks) * static_cast<int64_t>(s.f_frsize);
    return true;
}

RetentionKeeper::RetentionKeeper(FreeSpaceFloor floor, std::chrono::milliseconds period) : floor_(floor), period_(period) {
    thread_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        std::chrono::steady_clock::duration wait = period_;
        while (!wake_.wait_for(lock, wait, [this] { return stop_; })) {
            lock.unlock();
            const auto started = std::chrono::steady_clock::now();
            look();
            wait = wait_after_look(std::chrono::steady_clock::now() - started);
            lock.lock();
        }
    });
}

// A look reads every file name of the recordings' folders, which grow for months when nothing
// limits them (200,000 files: about half a core's second): a look that took D waits 100 D before
// the next, so the keeper costs about 1% of a core however full the folders, and at most a minute.
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

void RetentionKeeper::look() {
    std::vector<std::shared_ptr<RecordingRetention>> all;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        all = retentions_;
    }
    std::lock_guard<std::mutex> one_at_a_time(look_mutex_);
    for (const auto& r : all) r->enforce();
    if (floor_.set()) keep_floor(all);
}

void RetentionKeeper::keep_floor(const std::vector<std::shared_ptr<RecordingRetention>>& all) {
    // The recordings by the disk they are on: the floor is each disk's.
    std::map<dev_t, std::vector<RecordingRetention*>> by_disk;
    std::map<dev_t, std::string> folder_of;
    for (const auto& r : all) {
        struct stat st {};
        if (stat(r->folder().c_str(), &st) != 0) continue;
        by_disk[st.st_dev].push_back(r.get());
        folder_of.emplace(st.st_dev, r->folder());
    }
    for (const auto& [disk, recordings] : by_disk) {
        const std::string& folder = folder_of[disk];
        for (int deleted = 0; deleted < 10000; ++deleted) {
            int64_t free_bytes = 0, total = 0;
            if (!disk_space(folder, &free_bytes, &total)) break;
            const int64_t need = floor_.bytes_of(total);
            if (free_bytes >= need) {
                short_folders_.erase(folder);
                break;
            }
            RecordingRetention* from = nullptr;
            SegmentFile oldest;
            for (RecordingRetention* r : recordings)
                if (const auto f = r->oldest_finished(); f && (!from || f->written < oldest.written)) from = r, oldest = *f;
            if (!from) {
                if (short_folders_.insert(folder).second)
                    spdlog::warn("the disk of '{}' has {} free, below --min-free ({}), and no finished recording is left to delete",
                                 folder, format_bytes(free_bytes), format_bytes(need));
                break;
            }
            if (!from->remove(oldest, "the disk of '" + folder + "' had " + format_bytes(free_bytes) + " free, below --min-free " +
                                          format_bytes(need)))
                break;
        }
    }
}

}  // namespace vf
