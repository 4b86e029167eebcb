#include "app/run/stop_signals.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <exception>
#include <thread>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "app/run/job.hpp"

namespace vf {

StopSignals::StopSignals(bool with_hangup) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    if (with_hangup) sigaddset(&set_, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

int StopSignals::next(std::chrono::milliseconds wait) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(wait);
    timespec t{static_cast<time_t>(s.count()), static_cast<long>(std::chrono::nanoseconds(wait - s).count())};
    const int sig = sigtimedwait(&set_, nullptr, &t);
    return sig > 0 ? sig : 0;
}

void RunningJob::set(Job* job) {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = job;
    if (!job_ || stops_ == 0) return;
    job_->interrupt();  // a stop that came while the job was opening
    if (stops_ > 1) job_->abandon();
}

bool RunningJob::stopping() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stops_ > 0;
}

void RunningJob::stop(int n) {
    std::lock_guard<std::mutex> lock(mutex_);
    stops_ = n;
    stop_asked_ = true;
    if (n > 2 || (n > 1 && !job_)) _exit(130);
    if (!job_) {
        spdlog::warn("stopping: the output is finished once it is open (Ctrl-C again to leave now)");
        return;
    }
    if (n == 1) job_->interrupt();
    else job_->abandon();
}

int run_with_stop_signals(const std::function<int(RunningJob&)>& work) {
    StopSignals signals;
    RunningJob running;
    std::atomic<bool> done{false};
    int result = 0;
    std::exception_ptr error;
    std::thread worker([&] {
        try {
            result = work(running);
        } catch (...) {
            error = std::current_exception();
        }
        done = true;
    });
    int stops = 0;
    while (!done) {
        const int sig = signals.next(std::chrono::milliseconds(100));
        if (sig == SIGINT || sig == SIGTERM) running.stop(++stops);
    }
    worker.join();
    if (error) std::rethrow_exception(error);
    return result;
}

}  // namespace vf
