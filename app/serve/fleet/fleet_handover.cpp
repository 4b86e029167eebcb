// A camera handed back to the shard it belongs to, at a moment both shards agree on, so that its
// recordings meet with no gap and no second copy (docs/kubernetes.md, "Failover"):
//   1. The shard it belongs to again reads it in standby (its window closed: the input open,
//      nothing written) and, once frames come, says it is ready (a key bound to its lease).
//   2. The shard that holds its claim then announces a moment in its claim's value: a whole
//      second of the wall clock at least kLead from now, so that the other reads it in time.
//   3. Each writes the frames read on its side of that moment: the one ends its run at the first
//      frame read at or after it (its last segment closes there), the other writes from it.
//   4. The claim is let go once the run ended; the other claims it and writes on.
// If either shard is lost meanwhile, the claim or the ready key goes with its lease: a lost
// holder's camera is taken over as any other, and a hand-over to a lost shard is called off.
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "app/serve/fleet/fleet_membership.hpp"

namespace vf {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr int64_t kLeadMs = 2000;
constexpr int64_t kMostAheadMs = 60000;  // a hand-over's moment read further from now is ignored

int64_t wall_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A moment of the wall clock (ms since the epoch) on this process's steady clock.
SteadyClock::time_point steady_of(int64_t wall_ms) { return SteadyClock::now() + std::chrono::milliseconds(wall_ms - wall_ms_now()); }

}  // namespace

std::shared_ptr<RecordingWindow> FleetMembership::window_for(const std::string& name) {
    if (!lease_) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<RecordingWindow>& w = windows_[name];
    if (!w) {
        const auto claim = claims_.find(name);
        const bool standby = mode_ == Mode::Leased && claim != claims_.end() && claim->second != index_;
        w = std::make_shared<RecordingWindow>(!standby);
    }
    return w;
}

void FleetMembership::keep_windows(const std::set<std::string>& names) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = windows_.begin(); it != windows_.end();) it = names.count(it->first) ? std::next(it) : windows_.erase(it);
}

bool FleetMembership::leased_may_run_locked(const std::string& name) const {
    const int owner = owner_locked(name);
    const auto now = SteadyClock::now();
    const auto claim = claims_.find(name);
    if (claim == claims_.end()) {
        // After a new lease the claims are made anew: what ran runs on meanwhile; so does a stream
        // that writes here (its hand-over done) while its claim is made again.
        const auto w = windows_.find(name);
        const bool writing = w != windows_.end() && w->second->kept_frames() && !w->second->ended();
        return owner == index_ && (now < grace_until_ || writing);
    }
    if (claim->second != index_) return owner == index_ && claim->second >= 0;  // read in standby until handed over
    if (owner == index_) return !claimed_at_.count(name);  // claimed this second: from the next one
    // Another shard serves it now: written here up to the agreed moment, until the run ended
    // there; or, while that shard does not say it is ready, for a while (then let go at once).
    const auto w = windows_.find(name);
    if (w != windows_.end() && w->second->ended()) return false;
    const auto h = handovers_.find(name);
    if (h != handovers_.end() && h->second.to == owner) return wall_ms_now() < h->second.at_ms + kLeadMs;
    const auto since = owned_elsewhere_since_.find(name);
    const auto ready_wait = std::max<SteadyClock::duration>(std::chrono::seconds(30), std::chrono::seconds(2 * ttl_s_));
    return since == owned_elsewhere_since_.end() || now < since->second + ready_wait;
}

bool FleetMembership::follow_handovers_locked() {
    const auto now = SteadyClock::now();
    std::map<std::string, ShardLease::Handover> handing;
    std::set<std::string> ready_here;
    for (const auto& [name, shard] : claims_) {
        const int owner = owner_locked(name);
        const auto w = windows_.find(name);
        if (shard != index_ || owner == index_ || owner < 0) {
            owned_elsewhere_since_.erase(name);
            if (shard >= 0 && shard != index_ && owner == index_ && w != windows_.end() && w->second->saw_frames()) ready_here.insert(name);
            continue;
        }
        owned_elsewhere_since_.try_emplace(name, now);
        const auto asked = handing_.find(name);
        const auto ready = ready_.find(name);
        if (asked != handing_.end() && asked->second.to == owner) {
            handing[name] = asked->second;
        } else if (ready != ready_.end() && ready->second == owner && w != windows_.end()) {
            const int64_t at = (wall_ms_now() + kLeadMs) / 1000 * 1000 + 1000;
            handing[name] = {owner, at};
            // Ended here at that moment whether or not the announcement is read in time: at worst
            // a gap, never two writers (the other writes from it only once it has read it).
            w->second->end_at(steady_of(at));
            spdlog::info("stream '{}' goes back to shard {}/{}: written here up to {} ms past the epoch, there from then on", name, owner,
                         count_, at);
        }
    }
    if (handing != handing_) {
        handing_ = handing;
        lease_->set_handovers(handing);
        lease_->renew_now();
    }
    if (ready_here != ready_here_) {
        ready_here_ = ready_here;
        lease_->set_ready(ready_here);
        lease_->renew_now();
    }
    // The windows of the streams run here, as the claims read say.
    for (const auto& [name, w] : windows_) {
        const auto claim = claims_.find(name);
        const auto h = handovers_.find(name);
        if (claim == claims_.end()) continue;
        if (claim->second == index_) {
            if (owner_locked(name) == index_) w->open_from(now);
            if (h != handovers_.end() && h->second.to != index_) w->end_at(steady_of(h->second.at_ms));
            else w->end_never();
        } else if (claim->second >= 0 && h != handovers_.end() && h->second.to == index_ &&
                   std::llabs(h->second.at_ms - wall_ms_now()) <= kMostAheadMs) {  // a moment far off is no hand-over of vfilter's
            w->open_from(steady_of(h->second.at_ms));
        }
    }
    std::set<std::string> runnable;
    for (const auto& [name, shard] : claims_)
        if (leased_may_run_locked(name)) runnable.insert(name);
    const bool changed = runnable != runnable_;
    runnable_ = std::move(runnable);
    return changed;
}

}  // namespace vf
