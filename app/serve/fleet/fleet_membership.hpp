// Which streams this shard serves (docs/kubernetes.md, "Failover"). Without a store, the file's
// streams of its own shard (shard_of: fixed by the name). With --store, the streams whose owner
// among the live shards (owner_among over the shards whose leases live, shard_lease.hpp) is this
// one, so that a lost shard's cameras move to the others and come back when it returns.
//
// When its lease lapses (the store out of reach), a shard cannot know by itself whether the store
// is lost for every shard (then nobody takes anything over, and the cameras should keep recording
// where they are) or only for it (then the others take its cameras once its lease runs out, and it
// must have stopped writing by then). Its peers (--peers, app/serve/fleet/fleet.hpp) tell: it
// writes on ("frozen": the last live set kept) only once every peer has answered since the lease
// lapsed and none of them holds a lease; otherwise it serves nothing ("fenced") until its lease is
// back. It waits for their word up to half the lease's margin (the lease surely lives that long:
// shard_lease.hpp), so that a store lost for all does not stop every camera for a moment. Before the store ever answered it serves its own shard's streams, unless a peer holds a
// lease (the fleet runs on the store and this shard would double the others' recordings).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/serve/fleet/shard_lease.hpp"
#include "app/serve/serve_config.hpp"
#include "media/recording_window.hpp"

namespace vf {

class EtcdStore;

// What the peers said of their leases, as the fleet last heard (Fleet::peer_leases).
struct PeerLeases {
    int peers = 0;             // other shards the fleet knows of (0: no --peers)
    int answered_since = 0;    // of them, those that answered after the moment asked about
    int holding = 0;           // of those, the ones that hold a lease
};

class FleetMembership {
public:
    enum class Mode { Own, Leased, Frozen, Fenced };

    // Without a store: its own shard's streams, always.
    FleetMembership(int index, int count);
    // With one: leases in `store` (the lease's thread starts here).
    FleetMembership(int index, int count, std::shared_ptr<EtcdStore> store, ShardLeaseSettings lease);
    ~FleetMembership();
    FleetMembership(const FleetMembership&) = delete;
    FleetMembership& operator=(const FleetMembership&) = delete;

    int index() const { return index_; }
    int count() const { return count_; }
    bool has_store() const { return lease_ != nullptr; }

    // Decides the mode from the lease and what the peers said (`peers` as asked about the moment
    // lapsed_at() gives); true when it changed, or the live shards did, since the last call.
    bool update(const PeerLeases& peers);
    Mode mode() const;
    // Since when the lease has not been held (the epoch while it is, or before the first).
    std::chrono::steady_clock::time_point lapsed_at() const;
    // The shard that serves `name` now (as this process sees it), or -1 for none (fenced).
    int owner_of(const std::string& name) const;
    bool serves(const std::string& name) const { return owner_of(name) == index_; }
    // Whether this shard should claim `name` in the store: it serves it, and it is its own shard's
    // or the shard has held its lease for a lease's time (the others have had the time to take
    // theirs: a fleet starting shard by shard does not move streams about).
    bool should_claim(const std::string& name) const;
    // The shard that may add `name` through the API now: its owner, or the shard still holding its
    // claim (a hand-over under way), -1 for none.
    int admits(const std::string& name) const;
    // The streams other shards run, as the fleet last heard (the peers' lists): a shard that serves
    // without a lease (own, frozen) leaves them alone. True when they changed.
    bool set_elsewhere(std::set<std::string> names);
    // Whether this shard may run `name` now: it serves it and, with a store, holds its claim (a
    // stream starts only once claimed, and the one that ran it has let it go).
    bool may_run(const std::string& name) const;
    // The streams to hold claims on: those to claim and those still running. Claims of anything
    // else are let go. True when they differ from the last call's.
    bool set_wanted(std::set<std::string> names);
    // The window of a stream this shard runs (with a store; null without): standby while another
    // shard holds its claim, ended at the moment it hands the stream on (media/recording_window.hpp).
    // Windows of streams not named in `keep_windows` are forgotten.
    std::shared_ptr<RecordingWindow> window_for(const std::string& name);
    void keep_windows(const std::set<std::string>& names);
    // Streams this shard should claim that it does not hold yet.
    bool awaits_claims(const std::vector<std::string>& names) const;
    // Asks the store again now (claims awaited).
    void look_again();

    bool holds_lease() const { return lease_ && lease_->holds_lease(); }
    // Whether the lease lapsed and the peers' word is awaited (the fleet should ask them now).
    bool awaits_peers() const;
    // /fleet/shard's "store" member: {"lease": bool, "mode": "...", "live": [...]} (null without one).
    nlohmann::json describe() const;
    // Work for the lease's thread after each renewal (ShardLease::set_after_renewal).
    void after_renewal(std::function<void()> work) {
        if (lease_) lease_->set_after_renewal(std::move(work));
    }
    // Ends the lease at once (a clean stop: the others take over now).
    void leave();

    static const char* mode_name(Mode m);

    // Streams moved, as the serve loop counts them after applying a change (fleet metrics).
    void count_moves(int64_t taken_over, int64_t handed_back) { takeovers_ += taken_over, handbacks_ += handed_back; }
    int64_t takeovers() const { return takeovers_; }
    // Streams this shard should run that wait for room (serve: max-streams, decoder capacity).
    void set_waiting_for_room(int64_t n) { waiting_for_room_ = n; }
    int64_t waiting_for_room() const { return waiting_for_room_; }
    // Whether this shard holds `name`'s claim (as last read).
    bool holds_claim(const std::string& name) const;
    int64_t handbacks() const { return handbacks_; }

private:
    bool note_new_claims(const std::map<std::string, int>& claims);
    int owner_locked(const std::string& name) const;
    bool leased_may_run_locked(const std::string& name) const;
    // Hand-backs (fleet_handover.cpp): the hand-overs to announce, the windows moved as the claims
    // read say, and the streams ready in standby; true when a stream should start or stop now.
    bool follow_handovers_locked();

    const int index_, count_;
    std::atomic<int64_t> takeovers_{0}, handbacks_{0}, waiting_for_room_{0};
    std::chrono::milliseconds decide_within_{0};  // after a lapse, how long to wait for the peers' word
    std::unique_ptr<ShardLease> lease_;
    mutable std::mutex mutex_;
    Mode mode_ = Mode::Own;
    std::vector<int> live_;  // the live set ownership is computed over (Leased, Frozen)
    std::chrono::steady_clock::time_point lapsed_at_{};  // the epoch while the lease is held
    std::chrono::steady_clock::time_point decide_by_{};  // a lapse's decision waits for the peers until then
    bool retried_ = false;                                // a frozen shard retried once a peer held a lease
    int64_t grants_seen_ = 0;                             // leases granted that update() has seen
    int ttl_s_ = 0;
    std::chrono::steady_clock::time_point grace_until_{};  // after a new lease: the shards live before count as live
    std::vector<int> grace_live_;
    uint64_t version_seen_ = 0;          // the lease's reads update() has seen
    std::map<std::string, int> claims_;  // as last read: stream -> shard
    std::set<std::string> wanted_;       // as set_wanted() last gave them
    std::set<std::string> elsewhere_;    // as set_elsewhere() last gave them
    std::map<std::string, std::chrono::system_clock::time_point> claimed_at_;  // claimed, not run yet (note_new_claims)
    std::chrono::steady_clock::time_point leased_since_{};  // the first lease (for should_claim)

    // Hand-backs: what the claims read announce, which shard is ready for which stream, what this
    // shard asked its lease to announce, since when a stream it holds belongs to another shard,
    // and the moments already acted on.
    std::map<std::string, ShardLease::Handover> handovers_, handing_;
    std::map<std::string, int> ready_;
    std::set<std::string> ready_here_;
    std::map<std::string, std::chrono::steady_clock::time_point> owned_elsewhere_since_;
    std::set<std::string> runnable_;  // the claimed streams that may run, as the last update saw them
    std::map<std::string, std::shared_ptr<RecordingWindow>> windows_;  // the streams run here (leased)
};

// The streams of `whole` that this shard runs now, each with its recording window (with a store).
ServeConfig owned_streams(ServeConfig whole, FleetMembership& membership);

}  // namespace vf
