#include "store_changes.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "app/serve/api_changes.hpp"
#include "app/serve/fleet/etcd_store.hpp"
#include "app/serve/serve_config.hpp"

namespace vf {
namespace {

constexpr const char* kKinds[] = {"added", "removed", "filters"};

}  // namespace

StoreChanges::StoreChanges(std::shared_ptr<EtcdStore> store, std::string prefix, ApiChanges& changes)
    : store_(std::move(store)), prefix_(std::move(prefix) + "/api/"), changes_(changes) {}

StoreChanges::Keys StoreChanges::keys_of_state() const {
    const nlohmann::json state = changes_.state();
    Keys keys;
    for (const char* kind : kKinds)
        for (const auto& [name, value] : state[kind].items()) keys[prefix_ + kind + "/" + name] = value.dump();
    return keys;
}

// This shard's changes since the last sync: the keys whose values it changed, and those it
// dropped (never another shard's key this shard has not read).
void StoreChanges::publish(const Keys& now) {
    for (const auto& [key, value] : now) {
        const auto was = stored_.find(key);
        if (was == stored_.end() || was->second != value) store_->put(key, value);
        stored_[key] = value;
    }
    for (auto it = stored_.begin(); it != stored_.end();) {
        if (now.count(it->first)) {
            ++it;
            continue;
        }
        store_->remove(it->first);
        it = stored_.erase(it);
    }
}

// Every shard's changes; adopted when they differ from what this shard holds.
bool StoreChanges::pull() {
    Keys read;
    nlohmann::json state = {{"version", 1}, {"added", nlohmann::json::object()}, {"removed", nlohmann::json::object()},
                            {"filters", nlohmann::json::object()}};
    for (const StoreEntry& e : store_->read_prefix(prefix_)) {
        if (e.key.size() <= prefix_.size() || e.key.compare(0, prefix_.size(), prefix_) != 0) continue;  // not what was asked
        const std::string tail = e.key.substr(prefix_.size());
        const size_t slash = tail.find('/');
        const std::string kind = slash == std::string::npos ? "" : tail.substr(0, slash), name = tail.substr(slash + 1);
        nlohmann::json value = nlohmann::json::parse(e.value, nullptr, false);
        const bool known = kind == "added" || kind == "removed" || kind == "filters";
        if (!known || !valid_stream_name(name) || value.is_discarded()) continue;  // not a change of this fleet's
        read[e.key] = e.value;
        state[kind][name] = std::move(value);
    }
    if (read == stored_) return false;
    if (read.empty() && !stored_.empty()) {  // every key gone at once: an etcd wiped, not a fleet's changes
        spdlog::warn("the fleet's store lost every API change (an etcd restored empty?): this shard's are written back");
        published_version_ = ~uint64_t{0};
        stored_.clear();
        return false;
    }
    if (!changes_.adopt(state, published_version_)) {
        if (changes_.version() == published_version_) stored_ = read;  // the same as here (or refused: logged)
        return false;  // else a change made here meanwhile: published first, at the next sync
    }
    stored_ = read;
    return true;
}

void StoreChanges::sync() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) {  // a store without changes takes this shard's (a fleet moving to a store); else the store's win
        started_ = true;
        published_version_ = changes_.version();
        if (store_->read_prefix(prefix_, 1).empty()) {
            publish(keys_of_state());
            return;
        }
    }
    const uint64_t version = changes_.version();
    if (version != published_version_) {
        publish(keys_of_state());
        published_version_ = version;
    }
    if (pull()) {
        published_version_ = changes_.version();
        pulled_ = true;
        spdlog::info("the fleet's store holds API changes made on other shards: taken");
    }
}

}  // namespace vf
