// A shard's membership of the fleet, held as a lease in the coordination store (etcd_store.hpp):
// the shard's key (PREFIX/shards/INDEX, its address as value) lives while its lease does. A
// thread of its own renews the lease every third of its time and reads which shards' keys live;
// a camera belongs to the highest-scoring live shard (owner_among, serve_config.hpp's hashing).
//
// Fencing: the lease is renewed with the time of the renewal's *sending* kept; etcd counts its
// time from the renewal's arrival, later. So from `valid_until()` = last sent + TTL - margin the
// lease may have expired and another shard may take this one's cameras: the owner stops writing
// their recordings by then. The others start them only once etcd has dropped the key (at least
// TTL after that arrival) and they have read it gone; so two shards never write one camera at
// once, as long as the machines' clocks run at the same rate within `margin` over a TTL.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace vf {

class EtcdStore;

struct ShardLeaseSettings {
    int index = 0;                    // this shard, 0..count-1
    int count = 1;                    // shards in the fleet
    std::string address;              // how peers reach this shard (its API's URL), kept as the key's value
    int ttl_s = 5;                    // the lease's time: a lost shard's cameras move after about this long
    std::string prefix = "/vfilter";  // the fleet's keys, so that one etcd serves several fleets
};

class ShardLease {
public:
    using Clock = std::chrono::steady_clock;
    // Reads are polled (alive(), claims(), version()): the serve loop asks when it looks.
    ShardLease(std::shared_ptr<EtcdStore> store, ShardLeaseSettings settings);
    ~ShardLease();  // stop(true)
    ShardLease(const ShardLease&) = delete;
    ShardLease& operator=(const ShardLease&) = delete;

    // Ends the thread; with `revoke`, the lease too, so the others take over at once (a clean
    // stop). Without, the key stays until the lease runs out (as when the process is killed).
    void stop(bool revoke);

    // Runs `work` on the lease's thread after each renewal the store answered (before the first
    // renewal). It may call the store; a StoreError it throws counts as the store not answering.
    void set_after_renewal(std::function<void()> work);
    // Tries a renewal now rather than at the next period.
    void renew_now();
    // Leases granted so far: one more each time a lapsed lease was taken anew.
    int64_t grants() const;
    // Waits until the first renewal was tried (answered or failed), up to `timeout`.
    void wait_for_first_try(std::chrono::milliseconds timeout);

    // The streams this shard runs, each claimed in the store with its lease (PREFIX/claims/NAME =
    // its index) so that no other shard starts one before it has let it go; claims of streams no
    // longer listed are let go at the next renewal (or renew_now()).
    void set_claims(std::set<std::string> names);
    // Every shard's claims as last read: stream name -> shard.
    std::map<std::string, int> claims() const;

    // A camera handed back (docs/kubernetes.md, "Failover"): the shard that holds its claim writes
    // it up to `at_ms` (the wall clock, ms since the epoch) and shard `to` from then on. Written
    // into the claim's value ("SHARD:LEASE>TO@MS"), so that it lives exactly as long as the claim.
    struct Handover {
        int to = -1;
        int64_t at_ms = 0;
        bool operator==(const Handover& o) const { return to == o.to && at_ms == o.at_ms; }
    };
    // The hand-overs this shard's claims announce (written at the next renewal; a claim not
    // listed is written plain again: a hand-over called off).
    void set_handovers(std::map<std::string, Handover> handovers);
    // Every claim's hand-over as last read.
    std::map<std::string, Handover> handovers() const;
    // The streams this shard reads in standby and could take at once (PREFIX/ready/NAME, bound
    // to its lease): the shard that holds one's claim then hands it over.
    void set_ready(std::set<std::string> names);
    // Every shard's ready streams as last read: stream name -> shard.
    std::map<std::string, int> ready() const;
    // One more each time the live shards or the claims read differ from the read before.
    uint64_t version() const;

    // The live shards as last read (empty before the store first answered).
    std::vector<int> alive() const;
    // Until when this shard's lease surely lives (the epoch of Clock before the first grant).
    Clock::time_point valid_until() const;
    bool holds_lease() const { return Clock::now() < valid_until(); }
    // Whether the store answered the last call (false before the first).
    bool store_answers() const;
    // The part of the TTL kept back for clocks that run at different rates and for the owner's
    // last segment writes to end.
    static std::chrono::milliseconds margin(int ttl_s);
    static std::chrono::milliseconds renew_period(int ttl_s);

private:
    void run();
    void renew_once();
    std::vector<int> read_alive();
    std::map<std::string, int> sync_claims(int64_t lease, std::map<std::string, Handover>& handovers);
    std::map<std::string, int> sync_ready(int64_t lease);
    std::string value_of_mine(int64_t lease) const;
    void run_after_renewal();
    static constexpr int kClaimWrites = 32;  // claims made or let go a renewal
    std::string key_of(int index) const;

    std::shared_ptr<EtcdStore> store_;
    const ShardLeaseSettings settings_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    int64_t lease_ = 0;
    Clock::time_point valid_until_{};
    std::vector<int> alive_;
    bool store_answers_ = false;
    bool tried_ = false;
    bool renew_now_ = false;
    std::function<void()> after_renewal_;
    int64_t grants_ = 0;
    std::set<std::string> wanted_claims_;
    std::map<std::string, int> claims_;
    std::map<std::string, Handover> wanted_handovers_, handovers_;
    std::set<std::string> wanted_ready_;
    std::map<std::string, int> ready_;
    uint64_t version_ = 0;
    std::set<std::string> foreign_keys_warned_;
    std::thread thread_;
};

}  // namespace vf
