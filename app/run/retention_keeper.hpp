// Keeps recordings from filling disks: once a second (less often when a look takes long: a look
// that used D of CPU waits 100 D, at most a minute), on a thread of its own, it applies every
// registered stream's retention (retain, retain-size), then the free-space floor (--min-free) of
// each disk the recordings go to: below it, the oldest finished recording of any stream on that
// disk is deleted first, until the floor is met or nothing finished is left (then the log says so,
// once). The file a stream is writing is never touched.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config/quantities.hpp"
#include "encode/recording_retention.hpp"

namespace vf {

// The free and total bytes of the filesystem holding `folder` (statvfs); false when it cannot tell.
bool disk_space(const std::string& folder, int64_t* free_bytes, int64_t* total_bytes);

class RetentionKeeper {
public:
    explicit RetentionKeeper(FreeSpaceFloor floor, std::chrono::milliseconds period = std::chrono::seconds(1));
    ~RetentionKeeper();  // stops its thread
    RetentionKeeper(const RetentionKeeper&) = delete;
    RetentionKeeper& operator=(const RetentionKeeper&) = delete;

    void add(std::shared_ptr<RecordingRetention> retention);
    void remove(const RecordingRetention* retention);
    // One look now: what the thread does each period. True when it left a backlog.
    bool look();
    const FreeSpaceFloor& floor() const { return floor_; }

private:
    bool keep_floor(const std::vector<std::shared_ptr<RecordingRetention>>& all);
    bool keep_floor_of(const std::string& folder, const std::vector<RecordingRetention*>& recordings);
    std::chrono::steady_clock::duration wait_after_look(std::chrono::steady_clock::duration took) const;

    FreeSpaceFloor floor_;
    std::chrono::milliseconds period_;
    std::mutex mutex_;  // the list and stop_
    std::condition_variable wake_;
    std::vector<std::shared_ptr<RecordingRetention>> retentions_;
    bool stop_ = false;
    std::mutex look_mutex_;                 // one look at a time (the thread, or a caller)
    std::set<std::string> short_folders_;   // below the floor with nothing to delete: said once
    std::thread thread_;
};

}  // namespace vf
