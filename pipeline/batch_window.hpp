// The batch window of the shared GPU stage: frames of several streams that share a filter plan
// and a geometry wait here briefly so that one launch filters them all (serve, docs/serve.md).
//
// Producers (one stream's GPU engine each) join the window, hand in jobs and wait for them to be
// launched. One thread of the window launches: whenever a flush is due it takes every waiting
// job, splits them into groups (jobs with equal `group` that `same_group` also finds equal, in
// arrival order) and calls `launch` once per group. A flush is due when
//   - every producer that last submitted into the oldest job's group (or has not submitted yet)
//     has a job waiting in it (streams in step, and a stream alone in its group, go at once),
//   - `max_batch` jobs are waiting, or
//   - the oldest job has waited `max_wait`.
// So a window costs a stream at most `max_wait` of latency and batches whatever arrives in it.
//
// Nothing here knows CUDA: the GPU engine supplies `launch`; the tests drive the window with
// plain threads (and ThreadSanitizer).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace vf {

// One frame's work in the window. Producers derive their own job type from it.
struct BatchJob {
    const void* producer = nullptr;  // who submitted it: join()'s argument
    uint64_t group = 0;              // a hash of what must be equal to share a launch
    // Written by the window under its lock; read them through BatchWindow::launched().
    bool launched = false;
    std::exception_ptr error;  // what `launch` threw for this job's group
    std::chrono::steady_clock::time_point arrived;
};

struct BatchWindowOptions {
    int max_batch = 16;                          // a flush once this many jobs wait
    std::chrono::microseconds max_wait{2000};    // the longest a job waits for others
};

struct BatchWindowCounts {
    int64_t launches = 0;  // calls of `launch`
    int64_t jobs = 0;      // jobs launched (jobs / launches: the mean batch)
    int largest = 0;       // the largest group launched
};

class BatchWindow {
public:
    // same_group(a, b): whether two jobs of equal `group` may really share a launch (the hash
    // only narrows the search). launch(jobs): runs on the window's thread with jobs of one group;
    // what it throws (vf::Error keeps its category; anything else becomes Internal) becomes each
    // of those jobs' error.
    using SameGroup = std::function<bool(const BatchJob&, const BatchJob&)>;
    using Launch = std::function<void(const std::vector<BatchJob*>&)>;

    BatchWindow(BatchWindowOptions options, SameGroup same_group, Launch launch);
    // Launches what still waits, then stops the thread.
    ~BatchWindow();
    BatchWindow(const BatchWindow&) = delete;
    BatchWindow& operator=(const BatchWindow&) = delete;

    void join(const void* producer);
    // Drops the producer's waiting jobs (they never launch: launched stays false) and returns
    // once no launch is under way, so the caller may free what its jobs point to.
    void leave(const void* producer);
    // Hands in a job; it must stay alive until launched (or until its producer leaves).
    void submit(BatchJob& job);
    // Whether `job` has been launched; with wait, waits until it is. Rethrows its launch's error.
    bool launched(BatchJob& job, bool wait);

    BatchWindowCounts counts() const;
    const BatchWindowOptions& options() const { return options_; }

private:
    void run();
    bool flush_due(std::chrono::steady_clock::time_point now) const;
    void flush(std::unique_lock<std::mutex>& lock);

    const BatchWindowOptions options_;
    const SameGroup same_group_;
    const Launch launch_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;      // the window's thread: a job came, or stop
    std::condition_variable launched_;  // producers: a launch finished
    std::deque<BatchJob*> waiting_;
    // Each producer's last group; none before its first job (it may join any group).
    std::map<const void*, std::optional<uint64_t>> producers_;
    bool launching_ = false;
    bool stop_ = false;
    BatchWindowCounts counts_;
    std::thread thread_;
};

}  // namespace vf
