// The changes made through the API (app/serve/api_changes.hpp) kept in the fleet's store too
// (--store), so that a camera added through one shard lives on when that shard is lost: every
// shard holds every change, and a stream's owner among the live shards runs it. One key a change,
// so that changes to different streams made on different shards at once never undo each other:
// PREFIX/api/added/NAME (the entry as sent), PREFIX/api/removed/NAME (the file entry's
// fingerprint), PREFIX/api/filters/NAME ({"filter", "entry"}). What is read back is checked as the
// api-state file is, and each entry again as a client's when it is applied (ApiChanges::over).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace vf {

class ApiChanges;
class EtcdStore;

class StoreChanges {
public:
    StoreChanges(std::shared_ptr<EtcdStore> store, std::string prefix, ApiChanges& changes);

    // Writes this shard's changes made since the last call, then reads every shard's; on the
    // lease's thread, after each renewal (throws StoreError when the store does not answer).
    void sync();
    // Whether sync() took other shards' changes since the last call (the list is built anew).
    bool take_pulled() { return pulled_.exchange(false); }

private:
    using Keys = std::map<std::string, std::string>;  // key -> value as stored
    Keys keys_of_state() const;
    void publish(const Keys& now);
    bool pull();

    std::shared_ptr<EtcdStore> store_;
    const std::string prefix_;
    ApiChanges& changes_;
    std::mutex mutex_;  // one sync at a time
    Keys stored_;       // what the store held at the last sync
    uint64_t published_version_ = 0;
    bool started_ = false;
    std::atomic<bool> pulled_{false};
};

}  // namespace vf
