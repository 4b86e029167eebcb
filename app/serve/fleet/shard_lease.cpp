#include "shard_lease.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/thread_name.hpp"
#include "etcd_store.hpp"

namespace vf {
namespace {

// A key from the store as a log line may show it: printable ASCII, at most 80 characters.
std::string shown(const std::string& key) {
    std::string out;
    for (char c : key.substr(0, 80)) out += c >= 0x20 && c < 0x7f ? c : '?';
    return key.size() > 80 ? out + "..." : out;
}

}  // namespace

std::chrono::milliseconds ShardLease::margin(int ttl_s) {
    // A fifth of the TTL, at least a second: a renewal's trip, a clock's drift, a segment's close.
    return std::max(std::chrono::milliseconds(1000), std::chrono::milliseconds(ttl_s * 200));
}

std::chrono::milliseconds ShardLease::renew_period(int ttl_s) {
    // Four tries a TTL, so that one lost renewal does not cost the lease, and a peer's failed call
    // (store_answers) shows before a lease renewed at another phase lapses.
    return std::chrono::milliseconds(std::max(200, ttl_s * 1000 / 4));
}

ShardLease::ShardLease(std::shared_ptr<EtcdStore> store, ShardLeaseSettings settings)
    : store_(std::move(store)), settings_(std::move(settings)) {
    if (settings_.count < 1 || settings_.index < 0 || settings_.index >= settings_.count)
        throw Error(ErrorCategory::Usage, "shard " + std::to_string(settings_.index) + " of " + std::to_string(settings_.count) +
                                              ": the index runs from 0 to the count less one");
    if (settings_.ttl_s < 3 || settings_.ttl_s > 3600) throw Error(ErrorCategory::Usage, "the lease's time runs from 3 to 3600 seconds");
    thread_ = std::thread([this] { run(); });
}

ShardLease::~ShardLease() { stop(true); }

void ShardLease::stop(bool revoke) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_ && !thread_.joinable()) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    int64_t lease;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        lease = lease_;
        lease_ = 0;
        valid_until_ = {};
    }
    if (!revoke || lease == 0) return;
    try {
        store_->revoke_lease(lease);
        spdlog::info("shard {} left the fleet: its cameras go to the others now", settings_.index);
    } catch (const StoreError& e) {
        spdlog::warn("shard {}: its lease could not be ended ({}): the others take its cameras when it runs out", settings_.index, e.what());
    }
}

std::vector<int> ShardLease::alive() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return alive_;
}

ShardLease::Clock::time_point ShardLease::valid_until() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return valid_until_;
}

bool ShardLease::store_answers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return store_answers_;
}

std::string ShardLease::key_of(int index) const { return settings_.prefix + "/shards/" + std::to_string(index); }

void ShardLease::set_after_renewal(std::function<void()> work) {
    std::lock_guard<std::mutex> lock(mutex_);
    after_renewal_ = std::move(work);
}

void ShardLease::renew_now() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        renew_now_ = true;
    }
    wake_.notify_all();
}

void ShardLease::set_claims(std::set<std::string> names) {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted_claims_ = std::move(names);
}

std::map<std::string, int> ShardLease::claims() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return claims_;
}

void ShardLease::set_handovers(std::map<std::string, Handover> handovers) {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted_handovers_ = std::move(handovers);
}

std::map<std::string, ShardLease::Handover> ShardLease::handovers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return handovers_;
}

void ShardLease::set_ready(std::set<std::string> names) {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted_ready_ = std::move(names);
}

std::map<std::string, int> ShardLease::ready() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ready_;
}

uint64_t ShardLease::version() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return version_;
}

int64_t ShardLease::grants() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return grants_;
}

void ShardLease::wait_for_first_try(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait_for(lock, timeout, [this] { return tried_ || stopping_; });
}

void ShardLease::run() {
    name_this_thread("vf-lease");
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        renew_once();
        lock.lock();
        if (!tried_) {
            tried_ = true;
            wake_.notify_all();
        }
        wake_.wait_for(lock, renew_period(settings_.ttl_s), [this] { return stopping_ || renew_now_; });
        renew_now_ = false;
    }
}

// One renewal (or a new lease when there is none or it ran out), then the live shards read.
void ShardLease::renew_once() {
    const Clock::time_point sent = Clock::now();
    const auto lasts = std::chrono::seconds(settings_.ttl_s) - margin(settings_.ttl_s);
    int64_t lease;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        lease = lease_;
    }
    try {
        if (lease != 0 && store_->keep_alive(lease) == 0) {
            spdlog::warn("shard {}: its lease ran out (the store was out of reach too long): taking a new one", settings_.index);
            lease = 0;
        }
        if (lease == 0) {
            lease = store_->grant_lease(settings_.ttl_s);
            const nlohmann::json value{{"shard", settings_.index}, {"of", settings_.count}, {"address", settings_.address}};
            store_->put(key_of(settings_.index), value.dump(), lease);
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (lease_ != lease) ++grants_;
            lease_ = lease;
            valid_until_ = sent + lasts;
        }
        std::vector<int> alive = read_alive();
        if (std::find(alive.begin(), alive.end(), settings_.index) == alive.end()) {  // its key deleted by hand
            store_->put(key_of(settings_.index), nlohmann::json{{"shard", settings_.index}, {"of", settings_.count}, {"address", settings_.address}}.dump(),
                        lease);
            alive.insert(std::lower_bound(alive.begin(), alive.end(), settings_.index), settings_.index);
        }
        std::map<std::string, Handover> handovers;
        std::map<std::string, int> claims = sync_claims(lease, handovers);
        std::map<std::string, int> ready = sync_ready(lease);
        bool changed, was_answering;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            was_answering = store_answers_;
            store_answers_ = true;
            changed = alive != alive_;
            if (changed || claims != claims_ || handovers != handovers_ || ready != ready_) ++version_;
            alive_ = alive;
            claims_ = std::move(claims);
            handovers_ = std::move(handovers);
            ready_ = std::move(ready);
        }
        if (!was_answering) spdlog::info("shard {}: the store answers; live shards: {}", settings_.index, alive.size());
        run_after_renewal();
    } catch (const StoreError& e) {
        bool was_answering;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            was_answering = store_answers_;
            store_answers_ = false;
            if (lease == 0) lease_ = 0;
        }
        if (was_answering) spdlog::warn("shard {}: the store does not answer ({}): cameras stay where they are", settings_.index, e.what());
    }
}

namespace {

bool all_digits(const std::string& s, size_t most) {
    return !s.empty() && s.size() <= most && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A claim's or a ready key's value: "SHARD:LEASE", a claim's with ">TO@MS" after it. The shard
// (-1 when the value is not one of these) and the hand-over, if any and well formed.
int parse_holder(const std::string& value, int count, ShardLease::Handover* handover) {
    const size_t colon = value.find(':');
    const std::string index = value.substr(0, colon);
    if (colon == std::string::npos || !all_digits(index, 6) || std::stoi(index) >= count) return -1;
    const size_t arrow = value.find('>', colon);
    const size_t at = value.find('@', colon);
    if (handover && arrow != std::string::npos && at != std::string::npos && at > arrow) {
        const std::string to = value.substr(arrow + 1, at - arrow - 1), ms = value.substr(at + 1);
        if (all_digits(to, 6) && std::stoi(to) < count && all_digits(ms, 13)) *handover = {std::stoi(to), std::stoll(ms)};
    }
    return std::stoi(index);
}

std::string with_handover(const std::string& mine, const ShardLease::Handover* h) {
    return h ? mine + ">" + std::to_string(h->to) + "@" + std::to_string(h->at_ms) : mine;
}

}  // namespace

std::string ShardLease::value_of_mine(int64_t lease) const {
    char lease_hex[20];
    std::snprintf(lease_hex, sizeof lease_hex, "%llx", static_cast<unsigned long long>(lease));
    return std::to_string(settings_.index) + ":" + lease_hex;
}

// The claims made and let go as set_claims() asks, and their hand-overs written as
// set_handovers() asks; then every shard's claims: those bound to a lease, of a known shard;
// anything else is ignored. A claim is this process's only when bound to its own lease: another
// process started with the same index (a replacement pod beside the old one) never takes this
// one's claims for its own, nor this one its.
std::map<std::string, int> ShardLease::sync_claims(int64_t lease, std::map<std::string, Handover>& handovers) {
    const std::string prefix = settings_.prefix + "/claims/";
    const std::string mine = value_of_mine(lease);
    std::set<std::string> wanted;
    std::map<std::string, Handover> wanted_handovers;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        wanted = wanted_claims_;
        wanted_handovers = wanted_handovers_;
    }
    std::map<std::string, int> claims;
    std::map<std::string, std::string> own;  // bound to this process's lease: name -> value
    for (const StoreEntry& e : store_->read_prefix(prefix)) {
        if (e.key.size() <= prefix.size() || e.key.compare(0, prefix.size(), prefix) != 0 || e.lease == 0) continue;
        const std::string name = e.key.substr(prefix.size());
        Handover h;
        const int shard = parse_holder(e.value, settings_.count, &h);
        if (shard < 0) continue;
        const bool is_mine = e.lease == lease && (e.value == mine || e.value.rfind(mine + ">", 0) == 0);
        claims[name] = is_mine ? settings_.index : shard == settings_.index ? -2 : shard;  // -2: this index, another process
        if (is_mine) own[name] = e.value;
        if (h.to >= 0) handovers[name] = h;
    }
    // A bounded number of writes a renewal, so that the next renewal never waits long behind
    // them (a shard taking hundreds of cameras claims them over a few renewals, asked again at once).
    int writes = 0;
    for (const auto& [name, value] : own) {
        if (writes >= kClaimWrites) break;
        if (!wanted.count(name)) {
            ++writes;
            if (store_->remove_if(prefix + name, value)) claims.erase(name), handovers.erase(name);
            continue;
        }
        const auto h = wanted_handovers.find(name);
        const std::string value_now = with_handover(mine, h == wanted_handovers.end() ? nullptr : &h->second);
        if (value_now == value) continue;
        ++writes;
        if (!store_->replace_if(prefix + name, value, value_now, lease)) continue;
        if (h == wanted_handovers.end()) handovers.erase(name);
        else handovers[name] = h->second;
    }
    for (const std::string& name : wanted) {
        if (claims.count(name)) continue;
        if (writes++ >= kClaimWrites) {
            std::lock_guard<std::mutex> lock(mutex_);
            renew_now_ = true;  // the rest at once, after this renewal
            break;
        }
        if (store_->create(prefix + name, mine, lease)) claims[name] = settings_.index;
    }
    return claims;
}

// The ready keys made and let go as set_ready() asks; then every shard's.
std::map<std::string, int> ShardLease::sync_ready(int64_t lease) {
    const std::string prefix = settings_.prefix + "/ready/";
    const std::string mine = value_of_mine(lease);
    std::set<std::string> wanted;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        wanted = wanted_ready_;
    }
    std::map<std::string, int> ready;
    std::set<std::string> own;
    for (const StoreEntry& e : store_->read_prefix(prefix)) {
        if (e.key.size() <= prefix.size() || e.key.compare(0, prefix.size(), prefix) != 0 || e.lease == 0) continue;
        const std::string name = e.key.substr(prefix.size());
        const int shard = parse_holder(e.value, settings_.count, nullptr);
        if (shard < 0) continue;
        if (e.lease == lease && e.value == mine) own.insert(name);
        else if (shard != settings_.index) ready[name] = shard;
    }
    int writes = 0;
    for (const std::string& name : own)
        if (!wanted.count(name) && writes++ < kClaimWrites) store_->remove_if(prefix + name, mine);
    for (const std::string& name : wanted) {
        if (!own.count(name) && (writes++ >= kClaimWrites || !store_->create(prefix + name, mine, lease))) continue;
        ready[name] = settings_.index;
    }
    return ready;
}

// The after-renewal work, once what the renewal read is published: its failure is its own.
void ShardLease::run_after_renewal() {
    std::function<void()> after;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        after = after_renewal_;
    }
    if (!after) return;
    try {
        after();
    } catch (const std::exception& e) {
        spdlog::warn("shard {}: after its renewal: {}", settings_.index, e.what());
    }
}

// The shards whose keys live: PREFIX/shards/K for K in 0..count-1 with that K in its value.
// Anything else under the prefix was written by something else: ignored, with a warning once.
std::vector<int> ShardLease::read_alive() {
    const std::string prefix = settings_.prefix + "/shards/";
    std::vector<int> alive;
    for (const StoreEntry& e : store_->read_prefix(prefix)) {
        if (e.key.size() <= prefix.size() || e.key.compare(0, prefix.size(), prefix) != 0) continue;  // not what was asked
        const std::string tail = e.key.substr(prefix.size());
        int index = -1;
        if (!tail.empty() && tail.size() <= 6 && std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; }))
            index = std::stoi(tail);
        const nlohmann::json value = nlohmann::json::parse(e.value, nullptr, false);
        const bool well_formed = index >= 0 && index < settings_.count && e.lease != 0 && value.is_object() &&
                                 value.contains("shard") && value["shard"].is_number_integer() && value["shard"].get<int64_t>() == index;
        if (well_formed) {
            alive.push_back(index);
            continue;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (foreign_keys_warned_.insert(e.key).second)
            spdlog::warn("the store's key {} is not a shard of this fleet of {} (written by something else?): ignored", shown(e.key), settings_.count);
    }
    std::sort(alive.begin(), alive.end());
    alive.erase(std::unique(alive.begin(), alive.end()), alive.end());
    return alive;
}

}  // namespace vf
