#include "common/thread_pool.hpp"

#include "common/thread_name.hpp"

namespace vf {

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
    if (threads <= 0) threads = 1;
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w] {
        name_this_thread("vf-pool");
        work(w);
    });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::run_tasks(int worker) {
    for (;;) {
        int task;
        const std::function<void(int, int)>* job;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (next_ >= tasks_) return;
            task = next_++;
            job = job_;
        }
        try {
            (*job)(task, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (++finished_ == tasks_) done_.notify_all();
        }
    }
}

void ThreadPool::work(int worker) {
    unsigned seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
        }
        run_tasks(worker);
    }
}

void ThreadPool::parallel_for(int tasks, const std::function<void(int, int)>& fn) {
    if (tasks <= 0) return;
    if (workers_.empty() || tasks == 1) {
        for (int t = 0; t < tasks; ++t) fn(t, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &fn;
        tasks_ = tasks;
        next_ = 0;
        finished_ = 0;
        error_ = nullptr;
        ++generation_;
    }
    wake_.notify_all();
    run_tasks(0);
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return finished_ == tasks_; });
        job_ = nullptr;
        error = error_;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace vf
