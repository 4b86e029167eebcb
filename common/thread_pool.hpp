// A fixed set of worker threads that run the tasks of one parallel_for at a time.
// The filter stage uses it to spread row bands of a plane over every core.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vf {

class ThreadPool {
public:
    explicit ThreadPool(int threads);  // 0: one per hardware thread
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }  // the caller works too

    // Runs fn(task, worker) for task in [0, tasks) and returns when all are done. `worker` is in
    // [0, size()) and identifies per-worker scratch space. Exceptions from fn are rethrown here.
    void parallel_for(int tasks, const std::function<void(int task, int worker)>& fn);

private:
    void work(int worker);
    void run_tasks(int worker);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int, int)>* job_ = nullptr;
    int tasks_ = 0, next_ = 0, finished_ = 0;
    unsigned generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace vf
