#include "app/served_stream.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "app/input_wait.hpp"
#include "common/error.hpp"
#include "common/logging.hpp"
#include "common/redact.hpp"
#include "pipeline/live_metrics.hpp"
#include "pipeline/stats.hpp"

namespace vf {

const char* state_name(StreamState s) {
    switch (s) {
    case StreamState::Starting: return "starting";
    case StreamState::Waiting: return "waiting";
    case StreamState::Running: return "running";
    case StreamState::Reconnecting: return "reconnecting";
    case StreamState::Failed: return "failed";
    case StreamState::Stopped: return "stopped";
    }
    return "?";
}

ServedStream::ServedStream(StreamConfig config) : config_(std::move(config)), filter_(config_.options.filter.chain) {}

ServedStream::~ServedStream() {
    stop();
    join();
}

void ServedStream::start() { thread_ = std::thread([this] { run(); }); }

void ServedStream::join() {
    if (thread_.joinable()) thread_.join();
}

void ServedStream::stop(bool abandon) {
    stopping_ = true;
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = true;
    abandon_requested_ = abandon_requested_ || abandon;
    if (!job_) return;  // still opening or waiting: run() applies the request once the job exists
    if (abandon) job_->abandon();
    else job_->interrupt();
}

void ServedStream::run() {
    set_log_stream(config_.name);
    RunOptions o = config_.options;
    o.progress = false;
    std::unique_ptr<Job> job;
    try {
        job = make_job_when_input_opens(o, o.input.wait_for_input.value_or(true), stopping_, [this](const InputWait& w) {
            std::lock_guard<std::mutex> lock(mutex_);
            state_ = StreamState::Waiting;
            error_ = redact_credentials(w.reason);
            input_attempts_ = w.attempts;
            next_attempt_ = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(w.next_in_s));
        });
    } catch (const std::exception& e) {
        preview_->close();
        std::lock_guard<std::mutex> lock(mutex_);
        state_ = StreamState::Failed;
        error_ = redact_credentials(e.what());
        input_attempts_ = 0;
        spdlog::error("{}", e.what());
        return;
    }
    if (!job) {  // stopped while waiting for its input: nothing was written
        preview_->close();
        spdlog::info("stopped while waiting for its input; nothing was written");
        std::lock_guard<std::mutex> lock(mutex_);
        state_ = StreamState::Stopped;
        input_attempts_ = 0;
        return;
    }
    job->tap_frames(&preview_->tap(PreviewSide::Input), &preview_->tap(PreviewSide::Output));
    Job* running = job.get();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = std::move(job);
        ran_ = true;
        state_ = StreamState::Running;
        error_.clear();  // the wait's reason
        input_attempts_ = 0;
        if (abandon_requested_) running->abandon();
        else if (stop_requested_) running->interrupt();
    }
    StreamState end = StreamState::Stopped;
    std::string error;
    nlohmann::json stats;
    try {
        const JobResult r = running->run();
        stats = nlohmann::json::parse(redact_credentials(to_json(r.stats).dump()));
        // Damage ends a stream that stopped on its own (a live input gone for good after its
        // reconnect attempts) as failed; one stopped on request is stopped, with the damage said.
        if (r.damaged) {
            error = "input damaged: " + r.stats.damage;
            if (!r.interrupted) end = StreamState::Failed;
        }
    } catch (const std::exception& e) {
        end = StreamState::Failed;
        error = e.what();
    }
    preview_->close();
    if (end == StreamState::Failed) spdlog::error("{}", error);
    else if (!error.empty()) spdlog::warn("stopped; the output is complete; {}", error);
    else spdlog::info("stopped; the output is complete");
    std::unique_ptr<Job> finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        last_ = running->status();
        filter_ = running->filter();
        state_ = end;
        error_ = redact_credentials(error);
        final_stats_ = std::move(stats);
        finished = std::move(job_);  // destroyed outside the lock: readers only wait for the swap
    }
}

StreamState ServedStream::state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ == StreamState::Running && job_ && !job_->status().source_up) return StreamState::Reconnecting;
    return state_;
}

nlohmann::json ServedStream::describe() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const JobStatus s = job_ ? job_->status() : last_;
    StreamState state = state_;
    if (state == StreamState::Running && !s.source_up) state = StreamState::Reconnecting;
    nlohmann::json j;
    j["name"] = config_.name;
    j["state"] = state_name(state);
    j["input"] = redact_credentials(config_.options.input.url);
    j["output"] = redact_credentials(config_.options.output.path);
    j["filter"] = job_ ? job_->filter() : filter_;
    if (config_.options.filter.device != DeviceChoice::Cpu) j["gpu"] = config_.options.filter.gpu_index;  // where it runs if on a GPU
    j["frames_in"] = s.frames_in;
    j["frames_out"] = s.frames_out;
    j["frames_dropped"] = s.frames_dropped;
    j["fps"] = job_ ? s.fps : 0.0;
    j["reconnects"] = s.reconnects;
    j["latency_p99_ms"] = s.latency_p99_ms;
    if (job_ || ran_) j["device"] = s.on_gpu ? "gpu" : "cpu";
    j["last_error"] = error_;
    if (state == StreamState::Waiting) {
        j["input_attempts"] = input_attempts_;
        const double left = std::chrono::duration<double>(next_attempt_ - std::chrono::steady_clock::now()).count();
        j["next_attempt_s"] = std::round(std::max(0.0, left) * 10) / 10;
    }
    return j;
}

nlohmann::json ServedStream::summary() const {
    nlohmann::json j = describe();
    std::lock_guard<std::mutex> lock(mutex_);
    j["stats"] = final_stats_;
    return j;
}

void ServedStream::collect_metrics(MetricSet& set) const {
    const std::string labels = metric_label("stream", config_.name);
    std::lock_guard<std::mutex> lock(mutex_);
    if (job_) {
        job_->collect_metrics(set, labels);
        return;
    }
    // Not running (opening, or ended): the counters it ended with.
    LiveMetrics::collect_counters(set, labels, last_.frames_in, last_.frames_out, last_.frames_dropped, false);
}

bool ServedStream::on_gpu() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return job_ ? job_->status().on_gpu : last_.on_gpu;
}

void ServedStream::set_filter(const std::string& chain) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!job_ || state_ != StreamState::Running)
        fail(ErrorCategory::Usage, std::string("stream '") + config_.name + "' is " + state_name(state_) + ", not running");
    job_->set_filter(chain);
}

}  // namespace vf
