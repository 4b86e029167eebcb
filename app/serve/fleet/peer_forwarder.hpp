// Where requests passed to other shards wait for the peer's answer (app/serve/fleet/fleet_forward.cpp), so
// that no HTTP worker does: each forward runs on a thread of the forwarder's own, started when
// needed up to `threads`; `waiting` more wait for a thread; and one shard's forwards, running and
// waiting, are at most `per_shard`, so a shard that hangs cannot take the places of requests to
// healthy ones. Past these a forward is refused at once. stop() ends the calls under way (made
// with calls()), drops the forwards that wait, and joins every thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/http_call_stop.hpp"

namespace vf {

struct ForwardLimits {
    int threads = 32;    // forwards waiting for a peer at once
    int waiting = 32;    // forwards waiting for a thread
    int per_shard = 16;  // one shard's forwards, running and waiting
};

class PeerForwarder {
public:
    explicit PeerForwarder(ForwardLimits limits);
    ~PeerForwarder();  // stop()
    PeerForwarder(const PeerForwarder&) = delete;
    PeerForwarder& operator=(const PeerForwarder&) = delete;

    enum class Taken { Yes, ShardFull, AllFull };
    // Runs `task` on a forwarder thread, counted against `shard` until it returns; otherwise the
    // task is dropped (not run) and the reason said.
    Taken try_run(int shard, std::function<void()> task);
    // What a task's calls to its peer pass (http_call's stop): stop() ends them at once.
    HttpCallStop* calls() { return &calls_; }
    void stop();

    struct Counts {
        int pending = 0;       // running and waiting
        uint64_t refused = 0;  // since the start
    };
    std::map<int, Counts> counts() const;  // by shard, those that had a forward
    const ForwardLimits& limits() const { return limits_; }

private:
    void work();

    const ForwardLimits limits_;
    HttpCallStop calls_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::pair<int, std::function<void()>>> queue_;  // (shard, task)
    std::map<int, Counts> counts_;
    size_t running_ = 0, idle_ = 0;  // threads in a task, threads waiting for one
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace vf
