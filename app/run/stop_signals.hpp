// How every command stops: SIGINT and SIGTERM (and SIGHUP for serve) are blocked in every thread and
// taken by the main thread with sigtimedwait, so nothing runs in a signal handler and no global
// points at the work. serve waits for them in its own loop; the single run and batch run their
// jobs on a thread of their own while the main thread takes the signals (run_with_stop_signals).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>

#include <signal.h>

namespace vf {

class Job;

class StopSignals {
public:
    // Blocks the signals in this thread and in every thread started from it afterwards: call it
    // before any thread is started.
    explicit StopSignals(bool with_hangup = false);
    // The next of the signals within `wait` (SIGINT, SIGTERM, SIGHUP), or 0.
    int next(std::chrono::milliseconds wait);

private:
    sigset_t set_;
};

// The job a worker runs now, as the main thread sees it when a signal comes.
class RunningJob {
public:
    // The job now running (nullptr between jobs): a stop asked for while none ran applies to it.
    void set(Job* job);
    // Whether a stop has been asked for (batch takes no further item then).
    bool stopping() const;
    // The same as a flag to wait on (a single run waiting for its input ends the wait).
    const std::atomic<bool>& stop_flag() const { return stop_asked_; }

private:
    friend int run_with_stop_signals(const std::function<int(RunningJob&)>& work);
    // The n-th stop signal: 1 finishes the current job's output, 2 stops it at once (exit 130
    // while no job exists yet), 3 leaves at once.
    void stop(int n);

    mutable std::mutex mutex_;
    Job* job_ = nullptr;
    int stops_ = 0;
    std::atomic<bool> stop_asked_{false};
};

// Announces `job` as the running one while it lives (constructed after the job, so it is gone
// first, whatever way the job's scope ends).
class RunningJobScope {
public:
    RunningJobScope(RunningJob& running, Job& job) : running_(running) { running_.set(&job); }
    ~RunningJobScope() { running_.set(nullptr); }
    RunningJobScope(const RunningJobScope&) = delete;
    RunningJobScope& operator=(const RunningJobScope&) = delete;

private:
    RunningJob& running_;
};

// Runs work(running) on a thread of its own and takes SIGINT and SIGTERM on this one until it
// returns: the first asks the job running to stop reading and finish its output (held until a
// job is running, so an output being opened is finished rather than cut off), the second to
// discard what is in flight and finish at once, the third leaves at once (exit 130). Returns what
// work returned; rethrows what it threw.
int run_with_stop_signals(const std::function<int(RunningJob&)>& work);

}  // namespace vf
