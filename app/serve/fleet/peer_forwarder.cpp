#include "app/serve/fleet/peer_forwarder.hpp"

#include <algorithm>

#include "common/thread_name.hpp"

namespace vf {

PeerForwarder::PeerForwarder(ForwardLimits limits) : limits_(limits) {}

PeerForwarder::~PeerForwarder() { stop(); }

PeerForwarder::Taken PeerForwarder::try_run(int shard, std::function<void()> task) {
    std::unique_lock<std::mutex> lock(mutex_);
    Counts& counts = counts_[shard];
    const size_t all = running_ + queue_.size();
    const Taken taken = stopping_ || all >= static_cast<size_t>(std::max(limits_.threads, 1) + std::max(limits_.waiting, 0)) ? Taken::AllFull
                        : counts.pending >= std::max(limits_.per_shard, 1)                                                 ? Taken::ShardFull
                                                                                                                           : Taken::Yes;
    if (taken != Taken::Yes) {
        ++counts.refused;
        lock.unlock();
        task = nullptr;  // outside the lock: what it holds may take time to let go
        return taken;
    }
    ++counts.pending;
    queue_.emplace_back(shard, std::move(task));
    // Threads are started as forwards come, so a fleet that forwards little holds few.
    if (queue_.size() > idle_ && threads_.size() < static_cast<size_t>(std::max(limits_.threads, 1)))
        threads_.emplace_back([this] {
            name_this_thread("vf-forward");
            work();
        });
    ready_.notify_one();
    return Taken::Yes;
}

void PeerForwarder::stop() {
    std::deque<std::pair<int, std::function<void()>>> dropped;
    std::vector<std::thread> threads;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        dropped.swap(queue_);
        for (const auto& [shard, task] : dropped) --counts_[shard].pending;
        threads.swap(threads_);
    }
    calls_.stop();  // a call waiting for its peer ends now, not at its deadline
    ready_.notify_all();
    dropped.clear();  // their completions answer 503, or nothing once the server has gone
    for (std::thread& t : threads) t.join();
}

std::map<int, PeerForwarder::Counts> PeerForwarder::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

void PeerForwarder::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        ++idle_;
        ready_.wait(lock, [&] { return !queue_.empty() || stopping_; });
        --idle_;
        if (stopping_) return;
        auto [shard, task] = std::move(queue_.front());
        queue_.pop_front();
        ++running_;
        lock.unlock();
        try {
            task();
        } catch (...) {  // a task answers its own failures (a forward: its completion, 503 if uncalled)
        }
        task = nullptr;  // its captures go before its place is given back
        lock.lock();
        --running_;
        --counts_[shard].pending;
    }
}

}  // namespace vf
