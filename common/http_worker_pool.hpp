// The HTTP server's workers: a fixed number of threads that run handler calls, and a wait list
// of bounded length. A task that finds no room is refused at once (the I/O thread answers 503),
// so the thread that hands tasks over never waits. Internal to common/.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vf::http {

class WorkerPool {
public:
    WorkerPool(int workers, int waiting);
    ~WorkerPool();  // stop()
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs `task` on a worker: false when every worker is busy and `waiting` tasks already wait.
    bool try_run(std::function<void()> task);
    // Drops the tasks that wait, lets the running ones finish, and joins every worker.
    void stop();

private:
    void work();

    const size_t workers_, waiting_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> queue_;
    size_t busy_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;  // last: started once the rest is ready
};

}  // namespace vf::http
