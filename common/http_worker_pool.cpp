#include "common/http_worker_pool.hpp"

#include <algorithm>

#include "common/thread_name.hpp"

namespace vf::http {

WorkerPool::WorkerPool(int workers, int waiting)
    : workers_(static_cast<size_t>(std::max(workers, 1))), waiting_(static_cast<size_t>(std::max(waiting, 0))) {
    for (size_t i = 0; i < workers_; ++i) threads_.emplace_back([this] {
        name_this_thread("vf-http");
        work();
    });
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_run(std::function<void()> task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // A task is taken at once while a worker is idle; beyond those, `waiting_` may wait.
        const size_t idle = workers_ - busy_;
        if (stopping_ || queue_.size() >= idle + waiting_) return false;
        queue_.push_back(std::move(task));
    }
    ready_.notify_one();
    return true;
}

void WorkerPool::stop() {
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        dropped.swap(queue_);
    }
    ready_.notify_all();
    dropped.clear();  // outside the lock: a task's captures may take time to let go
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

void WorkerPool::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        ready_.wait(lock, [&] { return !queue_.empty() || stopping_; });
        if (stopping_) return;
        std::function<void()> task = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
        lock.unlock();
        task();
        task = nullptr;  // its captures go before the worker counts as idle
        lock.lock();
        --busy_;
    }
}

}  // namespace vf::http
