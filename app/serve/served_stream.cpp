#include "app/serve/served_stream.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "app/run/input_wait.hpp"
#include "app/run/retention_keeper.hpp"
#include "common/error.hpp"
#include "common/logging.hpp"
#include "common/redact.hpp"
#include "config/quantities.hpp"
#include "common/thread_name.hpp"
#include "decode/live_input.hpp"
#include "encode/clip_file.hpp"
#include "encode/output_target.hpp"
#include "encode/partial_recovery.hpp"
#include "encode/recording_repair.hpp"
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

namespace {

// Recordings on this machine's disk (not `null`, not a network output): what retention and the
// recovery of a killed run's .partial look after.
bool records_to_disk(const RunOutput& out) { return out.path != "null" && output_kind(out.path) == OutputKind::File; }

}  // namespace

ServedStream::ServedStream(StreamConfig config, RetentionKeeper* keeper, EncoderBudget* encoders, std::shared_ptr<GpuRuntime> runtime,
                           CameraWatchers* watchers, ClipMemoryBudget* clip_memory)
    : config_(std::move(config)), keeper_(keeper), runtime_(std::move(runtime)), preview_(std::make_shared<StreamPreview>(encoders)),
      filter_(config_.options.filter.chain.text()) {
    const RunOutput& out = config_.options.output;
    const bool segments = out.segment_s > 0 && records_to_disk(out);
    const bool clips = watchers && config_.watch.enabled && config_.clips.enabled() && records_to_disk(out);
    if (config_.clips.enabled() && !clips)
        spdlog::warn("stream '{}': clips.on is set, but the serve: block's watch: false turns every watch off: no clip is written",
                     config_.name);
    if (clips && clip_memory && !clip_memory->take(ClipRecorder::kRingBytes, &clip_memory_)) {
        clips_refused_ = "no clips: serve: clips-memory (" + format_bytes(clip_memory->total()) + ") is held by other streams' pre-roll (" +
                         format_bytes(ClipRecorder::kRingBytes) + " each); raise it" +
                         (config_.clips.only ? " (clips.only: the stream does not run)" : "");
        spdlog::warn("stream '{}': {}", config_.name, clips_refused_);
    }
    if (segments || clips) {
        // Kept from the first time the stream runs (run_job): a stream that never started has
        // written nothing, so its pattern has nothing of its own to delete.
        std::optional<SegmentSeries> series, clip_series;
        if (segments) series.emplace(segment_pattern(out.path));
        if (clips) clip_series = SegmentSeries::clips(clips_folder(out.path, config_.name));
        retention_ = std::make_shared<RecordingRetention>(config_.name, std::move(series), std::move(clip_series),
                                                          RetentionLimits{out.retain_s.value_or(0), out.retain_bytes.value_or(0)});
    }
    if (watchers && config_.watch.enabled) {  // its decoded frames, before the filter
        watch_ = std::make_shared<WatchedStream>(config_.name, config_.watch.settings, preview_, preview_->tap(PreviewSide::Input), runtime_,
                                                 config_.options.placement.gpu);
        if (clips && clips_refused_.empty()) {  // the output encoder's packets, around the watch's events
            clips_ = std::make_unique<ClipRecorder>(config_.name, config_.clips, config_.watch.settings,
                                                    ClipPlace{clips_folder(out.path, config_.name), clip_extension(out.path)}, preview_,
                                                    preview_->packets());
            clip_events_ = std::make_shared<ClipEventGate>([clips = clips_.get()](const watch::WatchEvent& e) { clips->on_event(e); });
            watch_->on_event([gate = clip_events_](const watch::WatchEvent& e) { gate->pass(e); });
        }
        watchers->add(watch_);
    }
}

ServedStream::~ServedStream() {
    stop();
    join();
    // The recorder ends here, on this thread, once the watchers' thread can no longer reach it.
    if (clip_events_) clip_events_->close();
    clips_.reset();
    clip_memory_.reset();
    if (keeper_ && retention_) keeper_->remove(retention_.get());
}

void ServedStream::start() {
    thread_ = std::thread([this] {
        name_this_thread("vf-stream");
        run();
    });
}

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
    if (!clips_refused_.empty() && config_.clips.only) {  // it records nothing but its clips
        {
            std::lock_guard<std::mutex> lock(mutex_);
            state_ = StreamState::Failed;
            error_ = clips_refused_;
        }
        preview_->close();
        finished_ = true;
        return;
    }
    RunOptions o = config_.options;
    // What a killed run left, before this run writes again: a single-file recording's OUT.partial
    // is kept under a name of its own if anything in it plays, else removed; a segment series'
    // last segments are cut after their last whole fragment, or removed when they hold none.
    const RunOutput& out = o.output;
    // Not in standby: the camera's recording is then another shard's, still being written into a
    // folder they may share (the one it leaves closes its last segment itself).
    const std::shared_ptr<RecordingWindow>& window = o.placement.recording_window;
    if (records_to_disk(out) && !(window && window->standby())) {
        if (out.segment_s <= 0) recover_partial_recording(out.path);
        else repair_segments_left_by_a_killed_run(segment_pattern(out.path));
    }
    while (run_job(o) && wait_for_space()) {
    }
    preview_->close();
    finished_ = true;
}

bool ServedStream::move_decoder(bool nvdec) {
    std::lock_guard<std::mutex> lock(mutex_);
    return job_ && state_ == StreamState::Running && job_->request_decoder_move(nvdec);
}

bool ServedStream::run_job(const RunOptions& options) {
    RunOptions o = options;
    // Retention is serve's (the keeper's), for clips too: a job checks it for segments alone.
    if (o.output.segment_s <= 0) o.output.retain_s.reset(), o.output.retain_bytes.reset();
    if (const int moved = moved_to_nvdec_; moved >= 0) o.input.hwdec = moved ? HwDecode::Auto : HwDecode::None;
    std::unique_ptr<Job> job;
    try {
        // A stream's job reports nothing of its own: serve's summary and /metrics are the process's.
        job = make_job_when_input_opens(o, JobReports{}, o.input.wait_for_input.value_or(true), stopping_, [this](const InputWait& w) {
            std::lock_guard<std::mutex> lock(mutex_);
            state_ = StreamState::Waiting;
            error_ = redact_credentials(w.reason);
            input_attempts_ = w.attempts;
            next_attempt_ = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(w.next_in_s));
        }, runtime_);
    } catch (const std::exception& e) {
        return ended_with_error(e);
    }
    if (!job) {  // stopped while waiting for its input: nothing was written
        spdlog::info("stopped while waiting for its input; nothing was written");
        std::lock_guard<std::mutex> lock(mutex_);
        state_ = StreamState::Stopped;
        input_attempts_ = 0;
        return false;
    }
    job->tap_frames(&preview_->tap(PreviewSide::Input), &preview_->tap(PreviewSide::Output), &preview_->packets());
    job->on_decoder_moved([this](bool nvdec) {  // the input logs the move
        moved_to_nvdec_ = nvdec ? 1 : 0;
        if (on_decoder_moved_) on_decoder_moved_(nvdec);
    });
    if (on_input_opened_) on_input_opened_(job->video(), job->decodes_on_nvdec(), job->waits_for_nvdec());
    Job* running = job.get();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = std::move(job);
        if (keeper_ && retention_ && !ran_) keeper_->add(retention_);
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
    bool retry = false;
    try {
        const JobResult r = running->run();
        stats = nlohmann::json::parse(redact_credentials(to_json(r.stats).dump()));
        // Damage ends a stream that stopped on its own (a live input gone for good after its
        // reconnect attempts) as failed; one stopped on request is stopped, with the damage said.
        if (r.damaged) {
            error = "input damaged: " + r.stats.damage;
            if (!r.interrupted) end = StreamState::Failed;
        }
    } catch (const Error& e) {
        end = StreamState::Failed;
        retry = records_again_after(e);
        error = e.what() + std::string(retry ? "; recording again once space returns" : "");
    } catch (const std::exception& e) {
        end = StreamState::Failed;
        error = e.what();
    }
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
    return retry;
}

bool ServedStream::records_again_after(const Error& e) const {
    // A segmented recording goes on in new files once there is room; a single output file cannot
    // be continued, and a stop asked for ends the stream.
    return e.disk_full() && retention_ && config_.options.output.segment_s > 0 && !stopping_;
}

bool ServedStream::ended_with_error(const std::exception& e) {
    const Error* error = dynamic_cast<const Error*>(&e);
    const bool retry = error && records_again_after(*error);
    const std::string message = e.what() + std::string(retry ? "; recording again once space returns" : "");
    spdlog::error("{}", message);
    std::lock_guard<std::mutex> lock(mutex_);
    state_ = StreamState::Failed;
    error_ = redact_credentials(message);
    input_attempts_ = 0;
    return retry;
}

bool ServedStream::wait_for_space() {
    const std::string& folder = retention_->folder();
    const FreeSpaceFloor floor = keeper_ ? keeper_->floor() : FreeSpaceFloor{};
    for (;;) {
        int64_t free_bytes = 0, total = 0;
        if (disk_space(folder, &free_bytes, &total) && free_bytes >= floor.bytes_of(total) + kRoomToRecordAgain) {
            spdlog::info("the disk of '{}' has {} free again: recording again", folder, format_bytes(free_bytes));
            return true;
        }
        if (!sleep_unless_stopped(1.0, stopping_)) return false;
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
    // Read by a shard about to take it over (app/serve/fleet/fleet_handover.cpp): nothing written yet.
    const std::shared_ptr<RecordingWindow>& window = config_.options.placement.recording_window;
    if (window && window->standby() && state != StreamState::Failed && state != StreamState::Stopped) j["state"] = "standby";
    if (window && window->past_end() && state != StreamState::Failed) j["state"] = state_name(StreamState::Stopped);  // handed on: writes no more
    j["input"] = redact_credentials(config_.options.input.url);
    j["output"] = redact_credentials(config_.options.output.path);
    j["filter"] = job_ ? job_->filter() : filter_;
    if (config_.options.filter.device != DeviceChoice::Cpu) j["gpu"] = config_.options.placement.gpu;  // where it runs if on a GPU
    j["frames_in"] = s.frames_in;
    j["frames_out"] = s.frames_out;
    j["frames_dropped"] = s.frames_dropped;
    j["fps"] = job_ ? s.fps : 0.0;
    j["reconnects"] = s.reconnects;
    j["latency_p99_ms"] = s.latency_p99_ms;
    j["latency_recent_p99_ms"] = s.latency_recent_p99_ms;
    j["latency_recent_p99_ms_parts"] = {{"decode", s.decode_recent_p99_ms},
                                        {"queue", s.queue_recent_p99_ms},
                                        {"filter", s.filter_recent_p99_ms},
                                        {"write", s.write_recent_p99_ms}};
    if (job_ || ran_) j["device"] = s.on_gpu ? "gpu" : "cpu";
    j["last_error"] = error_;
    if (retention_) {
        const RetentionCounts c = retention_->counts();
        j["recordings"] = {{"kept_files", c.kept_files},
                           {"kept_bytes", c.kept_bytes},
                           {"deleted_files", c.deleted_files},
                           {"deleted_bytes", c.deleted_bytes}};
    }
    if (watch_) j["watch"] = watch_->describe();
    if (clips_) j["clips"] = clips_->describe();
    else if (!clips_refused_.empty()) j["clips"] = {{"refused", clips_refused_}};
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
    LiveVideo& live = preview_->live();
    set.add("vfilter_live_encoders", "gauge", "Preview encoders running for live video (one per side and width watched).",
            live.encoders_running(), labels);
    set.add("vfilter_live_passthrough", "gauge",
            "1 while the output encoder's own packets are sent to live video viewers (no second encoder).",
            live.passthrough_running(), labels);
    set.add("vfilter_live_viewers", "gauge", "Viewers of the stream's live video (live.mp4 and the page's tiles).", live.viewers(), labels);
    set.add("vfilter_live_fragments_total", "counter", "Live video fragments made (one a frame).",
            static_cast<double>(live.fragments_made()), labels);
    if (watch_) watch_->collect_metrics(set, labels);
    if (clips_) clips_->collect_metrics(set, labels);
    if (retention_) {
        const RetentionCounts c = retention_->counts();
        set.add("vfilter_recordings_kept_files", "gauge", "Finished --segment recordings and clips on disk.", static_cast<double>(c.kept_files), labels);
        set.add("vfilter_recordings_kept_bytes", "gauge", "Bytes of finished --segment recordings and clips on disk.", static_cast<double>(c.kept_bytes), labels);
        set.add("vfilter_recordings_deleted_files_total", "counter", "Recordings deleted by retention or the free-space floor.",
                static_cast<double>(c.deleted_files), labels);
        set.add("vfilter_recordings_deleted_bytes_total", "counter", "Bytes of recordings deleted by retention or the free-space floor.",
                static_cast<double>(c.deleted_bytes), labels);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (job_) {
        job_->collect_metrics(set, labels);
        return;
    }
    // Not running (opening, or ended): the counters it ended with.
    LiveMetrics::collect_counters(set, labels, last_.frames_in, last_.frames_out, last_.frames_dropped, false);
}

int64_t ServedStream::frames_in() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return job_ ? job_->frames_in() : last_.frames_in;
}

bool ServedStream::on_gpu() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return job_ ? job_->status().on_gpu : last_.on_gpu;
}

void ServedStream::set_filter(const FilterChain& chain, const KernelFiles& files) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!job_ || state_ != StreamState::Running)
        fail(ErrorCategory::Usage, std::string("stream '") + config_.name + "' is " + state_name(state_) + ", not running");
    job_->set_filter(chain, files);
    config_.options.filter.kernel_files = files;
    // What it runs now: the config file applied again leaves it alone while the file's entry, with
    // the API's change over it (app/serve/api_changes.hpp), says the same.
    config_.fields["filter"] = chain.text();
    config_.options.filter.chain = chain;
}

}  // namespace vf
