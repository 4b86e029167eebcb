#include "pipeline/batch_window.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "common/error.hpp"
#include "common/thread_name.hpp"

namespace vf {

BatchWindow::BatchWindow(BatchWindowOptions options, SameGroup same_group, Launch launch)
    : options_(options), same_group_(std::move(same_group)), launch_(std::move(launch)) {
    thread_ = std::thread([this] {
        name_this_thread("vf-batch");
        run();
    });
}

BatchWindow::~BatchWindow() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void BatchWindow::join(const void* producer) {
    std::lock_guard<std::mutex> lock(mutex_);
    producers_.emplace(producer, std::nullopt);
}

void BatchWindow::leave(const void* producer) {
    std::unique_lock<std::mutex> lock(mutex_);
    producers_.erase(producer);
    waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [&](BatchJob* j) { return j->producer == producer; }),
                   waiting_.end());
    // A launch under way may hold one of its jobs.
    launched_.wait(lock, [&] { return !launching_; });
    wake_.notify_all();  // the producers still waiting may now all be in step
}

void BatchWindow::submit(BatchJob& job) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job.launched = false;
        job.error = nullptr;
        job.arrived = std::chrono::steady_clock::now();
        producers_[job.producer] = job.group;
        waiting_.push_back(&job);
    }
    wake_.notify_all();
}

bool BatchWindow::launched(BatchJob& job, bool wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wait) launched_.wait(lock, [&] { return job.launched; });
    if (!job.launched) return false;
    if (job.error) {
        std::exception_ptr e = std::move(job.error);
        job.error = nullptr;
        std::rethrow_exception(e);
    }
    return true;
}

BatchWindowCounts BatchWindow::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

bool BatchWindow::flush_due(std::chrono::steady_clock::time_point now) const {
    if (waiting_.empty()) return false;
    if (stop_ || static_cast<int>(waiting_.size()) >= options_.max_batch) return true;
    const BatchJob& oldest = *waiting_.front();
    if (now - oldest.arrived >= options_.max_wait) return true;
    // Are all the producers of the oldest job's group waiting in it?
    std::set<const void*> in_group;
    for (const BatchJob* j : waiting_)
        if (j->group == oldest.group) in_group.insert(j->producer);
    for (const auto& [producer, group] : producers_)
        if ((!group || *group == oldest.group) && !in_group.count(producer)) return false;
    return true;
}

void BatchWindow::flush(std::unique_lock<std::mutex>& lock) {
    std::deque<BatchJob*> jobs;
    jobs.swap(waiting_);
    launching_ = true;
    lock.unlock();
    // Split into groups, each in arrival order; then launch them in the order of their oldest.
    std::vector<std::vector<BatchJob*>> groups;
    for (BatchJob* j : jobs) {
        auto g = std::find_if(groups.begin(), groups.end(), [&](const std::vector<BatchJob*>& grp) {
            return grp.front()->group == j->group && same_group_(*grp.front(), *j);
        });
        if (g == groups.end())
            groups.push_back({j});
        else
            g->push_back(j);
    }
    // A failed launch fails each of its jobs with its own copy of the error: the producers
    // rethrow them on their own threads.
    std::vector<std::unique_ptr<Error>> errors(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
        try {
            launch_(groups[i]);
        } catch (const Error& e) {
            errors[i] = std::make_unique<Error>(e);
        } catch (const std::exception& e) {
            errors[i] = std::make_unique<Error>(ErrorCategory::Internal, e.what());
        }
    }
    lock.lock();
    for (size_t i = 0; i < groups.size(); ++i) {
        for (BatchJob* j : groups[i]) {
            j->error = errors[i] ? std::make_exception_ptr(*errors[i]) : nullptr;
            j->launched = true;
        }
        ++counts_.launches;
        counts_.jobs += static_cast<int64_t>(groups[i].size());
        counts_.largest = std::max(counts_.largest, static_cast<int>(groups[i].size()));
    }
    launching_ = false;
    launched_.notify_all();
}

void BatchWindow::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        const auto now = std::chrono::steady_clock::now();
        if (flush_due(now)) {
            flush(lock);
            continue;
        }
        if (stop_) return;  // nothing waits
        if (waiting_.empty())
            wake_.wait(lock);
        else
            wake_.wait_until(lock, waiting_.front()->arrived + options_.max_wait);
    }
}

}  // namespace vf
