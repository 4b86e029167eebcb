#include "fleet_membership.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "app/serve/fleet/etcd_store.hpp"
#include "app/serve/serve_config.hpp"

namespace vf {

FleetMembership::FleetMembership(int index, int count) : index_(index), count_(count) {}

FleetMembership::FleetMembership(int index, int count, std::shared_ptr<EtcdStore> store, ShardLeaseSettings lease)
    : index_(index), count_(count), lapsed_at_(std::chrono::steady_clock::now()) {
    lease.index = index;
    lease.count = count;
    const int ttl_s = lease.ttl_s;
    ttl_s_ = ttl_s;
    decide_within_ = ShardLease::margin(ttl_s) / 2;
    lease_ = std::make_unique<ShardLease>(std::move(store), std::move(lease));
    // The streams start as the first answer says: a lease, or none within a call's time.
    lease_->wait_for_first_try(std::chrono::seconds(ttl_s));
}

FleetMembership::~FleetMembership() = default;

const char* FleetMembership::mode_name(Mode m) {
    switch (m) {
    case Mode::Own: return "own";
    case Mode::Leased: return "leased";
    case Mode::Frozen: return "frozen";
    case Mode::Fenced: return "fenced";
    }
    return "?";
}

namespace {

std::vector<int> joined(std::vector<int> a, const std::vector<int>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

const char* why_mode(FleetMembership::Mode m) {
    switch (m) {
    case FleetMembership::Mode::Leased: return "its lease is held";
    case FleetMembership::Mode::Frozen: return "the store is out of every shard's reach: cameras stay where they are";
    case FleetMembership::Mode::Own: return "the store does not answer: serving this shard's own streams";
    case FleetMembership::Mode::Fenced: return "its lease lapsed while the fleet may go on without it: its streams stop";
    }
    return "";
}

}  // namespace

bool FleetMembership::update(const PeerLeases& peers) {
    if (!lease_) return false;
    const auto now = std::chrono::steady_clock::now();
    const bool held = lease_->holds_lease();
    const std::vector<int> alive = lease_->alive();
    const int64_t grants = lease_->grants();
    const uint64_t version = lease_->version();
    std::map<std::string, int> claims = lease_->claims();
    std::map<std::string, ShardLease::Handover> handovers = lease_->handovers();
    std::map<std::string, int> ready = lease_->ready();
    std::lock_guard<std::mutex> lock(mutex_);
    const Mode was = mode_;
    const std::vector<int> live_was = live_;
    if (held) {
        if (grants > grants_seen_ && grants_seen_ > 0) {
            // A new lease after one lapsed: the store was lost, maybe for every shard. The shards
            // live before keep their streams for a lease's time, while they take their leases anew.
            grace_until_ = now + std::chrono::seconds(ttl_s_);
            grace_live_ = live_;
        }
        grants_seen_ = grants;
        retried_ = false;
        if (leased_since_ == std::chrono::steady_clock::time_point{}) leased_since_ = now;
        lapsed_at_ = {};
        decide_by_ = {};
        mode_ = Mode::Leased;
        live_ = now < grace_until_ ? joined(alive, grace_live_) : alive;
    } else {
        PeerLeases since = peers;
        if (lapsed_at_ == std::chrono::steady_clock::time_point{}) {  // lapsed just now: what the peers said was said before
            lapsed_at_ = now;
            decide_by_ = now + decide_within_;
            since.answered_since = since.holding = 0;
        }
        if (mode_ == Mode::Frozen && since.holding > 0 && !retried_) {
            retried_ = true;  // the store answers a peer again: try it too before giving way
            decide_by_ = now + decide_within_;
            lease_->renew_now();
        }
        // The store lost for all: a peer answered since the lapse and none of those holds a lease
        // (a peer that does not answer cannot take anything over).
        const bool all_answered = since.peers > 0 && since.answered_since > 0;
        const bool waiting = count_ > 1 && since.peers > 0 && now < decide_by_ && mode_ != Mode::Fenced;
        if (waiting && (since.holding > 0 || !all_answered))
            ;  // as it was, for the peers' word or the lease's retry
        else if (since.holding > 0)
            mode_ = Mode::Fenced;  // the store answers them: this shard is the one cut off
        else if (count_ == 1 || all_answered || (since.peers == 0 && grants_seen_ == 0))
            mode_ = grants_seen_ > 0 ? Mode::Frozen : Mode::Own;  // nobody takes over without a store
        else
            mode_ = Mode::Fenced;  // the others may take over: stop writing before they can
    }
    const bool read_again = version != version_seen_;
    version_seen_ = version;
    const bool claim_ripe = note_new_claims(claims);
    claims_ = std::move(claims);
    for (const auto& [name, h] : handovers)
        if (h.to == index_ && !handovers_.count(name)) spdlog::info("stream '{}' comes back here: written from {} ms past the epoch", name, h.at_ms);
    handovers_ = std::move(handovers);
    ready_ = std::move(ready);
    const bool moment = mode_ == Mode::Leased && follow_handovers_locked();
    if (mode_ == was && live_ == live_was && !claim_ripe && !moment && !(read_again && mode_ == Mode::Leased)) return false;
    if (mode_ != was) {
        std::string live;
        for (int k : live_) live += (live.empty() ? "" : ",") + std::to_string(k);
        spdlog::warn("shard {}/{}: {} ({}; live shards {})", index_, count_, mode_name(mode_), why_mode(mode_), live.empty() ? "none" : live);
    }
    return true;
}

bool FleetMembership::awaits_peers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lease_ && lapsed_at_ != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() < decide_by_;
}

FleetMembership::Mode FleetMembership::mode() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return mode_;
}

std::chrono::steady_clock::time_point FleetMembership::lapsed_at() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lapsed_at_;
}

int FleetMembership::owner_of(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return owner_locked(name);
}

int FleetMembership::owner_locked(const std::string& name) const {
    switch (mode_) {
    case Mode::Own: return shard_of(name, count_);
    case Mode::Leased:
    case Mode::Frozen: return owner_among(name, live_);
    case Mode::Fenced: return -1;
    }
    return -1;
}

nlohmann::json FleetMembership::describe() const {
    if (!lease_) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    // A lease that still runs while the store no longer answers is not the store answering.
    return {{"lease", lease_->holds_lease() && lease_->store_answers()}, {"mode", mode_name(mode_)}, {"live", live_}};
}

namespace {

int64_t wall_second(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

// A stream just claimed starts in a later second of the wall clock than its claim: the shard that
// had it finalised its last segment before letting the claim go, and that segment's name (dated
// to the second, as recordings should be) then cannot be the new one's. True when such a wait
// has just ended (the streams to run changed). mutex_ held.
bool FleetMembership::note_new_claims(const std::map<std::string, int>& claims) {
    const auto now = std::chrono::system_clock::now();
    const bool in_grace = std::chrono::steady_clock::now() < grace_until_;  // claims made anew for what runs
    for (const auto& [name, shard] : claims) {
        if (in_grace) break;
        if (windows_.count(name)) continue;  // runs here already: read in standby, handed over now
        const auto had = claims_.find(name);
        if (shard == index_ && (had == claims_.end() || had->second != index_)) claimed_at_[name] = now;
    }
    bool ripe = false;
    for (auto it = claimed_at_.begin(); it != claimed_at_.end();) {
        const auto claim = claims.find(it->first);
        if (claim == claims.end() || claim->second != index_) {
            it = claimed_at_.erase(it);
        } else if (wall_second(now) > wall_second(it->second)) {
            ripe = true;
            it = claimed_at_.erase(it);
        } else {
            ++it;
        }
    }
    return ripe;
}

bool FleetMembership::should_claim(const std::string& name) const {
    if (owner_of(name) != index_) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    const bool settled = leased_since_ != std::chrono::steady_clock::time_point{} &&
                         std::chrono::steady_clock::now() >= leased_since_ + std::chrono::seconds(ttl_s_);
    return settled || shard_of(name, count_) == index_;
}

int FleetMembership::admits(const std::string& name) const {
    const int owner = owner_of(name);
    std::lock_guard<std::mutex> lock(mutex_);
    const auto claim = claims_.find(name);
    if (mode_ != Mode::Leased || claim == claims_.end()) return owner;
    return claim->second >= 0 ? claim->second : -1;
}

bool FleetMembership::set_elsewhere(std::set<std::string> names) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (names == elsewhere_) return false;
    elsewhere_ = std::move(names);
    return mode_ == Mode::Own || mode_ == Mode::Frozen;
}

bool FleetMembership::may_run(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool serves = owner_locked(name) == index_;
    if (mode_ != Mode::Leased) return serves && !elsewhere_.count(name);  // no claims without a store: what the peers run stays theirs
    return leased_may_run_locked(name);
}

bool FleetMembership::holds_claim(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto claim = claims_.find(name);
    return claim != claims_.end() && claim->second == index_;
}

bool FleetMembership::awaits_claims(const std::vector<std::string>& names) const {
    if (!lease_) return false;
    for (const std::string& name : names) {
        if (!should_claim(name)) continue;
        std::lock_guard<std::mutex> lock(mutex_);
        const auto claim = claims_.find(name);
        if (mode_ == Mode::Leased && (claim == claims_.end() || claim->second != index_)) return true;
    }
    return false;
}

bool FleetMembership::set_wanted(std::set<std::string> names) {
    if (!lease_) return false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (names == wanted_) return false;
        wanted_ = names;
    }
    lease_->set_claims(std::move(names));
    return true;
}

void FleetMembership::look_again() {
    if (lease_) lease_->renew_now();
}

ServeConfig owned_streams(ServeConfig whole, FleetMembership& membership) {
    std::vector<StreamConfig> mine;
    std::set<std::string> names;
    for (StreamConfig& s : whole.streams)
        if (membership.may_run(s.name)) {
            s.options.placement.recording_window = membership.window_for(s.name);
            names.insert(s.name);
            mine.push_back(std::move(s));
        }
    membership.keep_windows(names);
    whole.streams = std::move(mine);
    return whole;
}

void FleetMembership::leave() {
    if (lease_) lease_->stop(true);
}

}  // namespace vf
