#include "app/serve/watch/camera_watchers.hpp"

#include <spdlog/spdlog.h>

#include <cmath>

#include "common/thread_name.hpp"

namespace vf {

namespace {

nlohmann::json optional_number(const std::optional<double>& v) {
    return v ? nlohmann::json(std::round(*v * 1e4) / 1e4) : nlohmann::json(nullptr);
}

nlohmann::json describe_measures(const watch::PictureMeasures& m) {
    const auto r = [](double v) { return std::round(v * 1e4) / 1e4; };
    return {{"sharpness", r(m.sharpness)},
            {"luma_mean", r(m.luma_mean)},
            {"luma_spread", r(m.luma_spread)},
            {"edge_strength", r(m.edge_strength)},
            {"difference", optional_number(m.difference)},
            {"changed_fraction", optional_number(m.changed_fraction)},
            {"edge_agreement", optional_number(m.edge_agreement)}};
}

}  // namespace

WatchedStream::WatchedStream(std::string stream, const watch::WatchSettings& settings, std::shared_ptr<void> tap_owner, FrameTap& tap,
                             std::shared_ptr<GpuRuntime> runtime, int gpu)
    : stream_(std::move(stream)), tap_owner_(std::move(tap_owner)), tap_(tap), thumbnailer_(std::move(runtime), gpu),
      watch_(stream_, settings),
      interval_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(watch_.watcher().measure_interval_s()))) {}

void WatchedStream::visit(std::chrono::steady_clock::time_point now, EventLog& log) {
    if (std::optional<LumaThumbnail> t = thumbnailer_.take()) observe(now, *t, log);
    if (thumbnailer_.busy()) return;  // a GPU thumbnail still under way
    if (!asked_) {
        if (now < next_due_) return;
        tap_.ask_sample();
        asked_ = true;
        return;
    }
    AvFramePtr frame = tap_.take_sample();
    if (!frame) return;  // none passed since: a stream that stalls is measured again once it flows
    asked_ = false;
    // The next measurement one interval after this one was due; a watch that fell behind does
    // not catch up with a burst.
    next_due_ = std::max(next_due_ + interval_, now);
    bool started = false;
    std::string why = "their format has no luma plane to measure";
    try {
        started = thumbnailer_.start(std::move(frame));
    } catch (const std::exception& e) {
        why = e.what();
    }
    if (!started && !unmeasurable_logged_) {  // once: it is tried again with every frame due
        unmeasurable_logged_ = true;
        spdlog::warn("stream '{}': its decoded frames are not measured ({})", stream_, why);
    }
    if (std::optional<LumaThumbnail> t = thumbnailer_.take()) observe(now, *t, log);
}

void WatchedStream::observe(std::chrono::steady_clock::time_point now, const LumaThumbnail& t, EventLog& log) {
    const std::vector<watch::WatchEvent> events = watch_.observe(EventLog::steady_seconds(now), t);
    for (const watch::WatchEvent& e : events) {
        log.add(e);
        if (on_event_) on_event_(e);
        spdlog::info("stream '{}': {} {} (measure {:.4g})", stream_, e.entered ? "entered" : "left", watch::condition_name(e.kind), e.value);
    }
    history_.add(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(), watch_.last_measures());
    std::lock_guard<std::mutex> lock(mutex_);
    for (const watch::WatchEvent& e : events) ++events_[static_cast<int>(e.kind)];
    for (const watch::Condition c : watch::kConditions) active_[static_cast<int>(c)] = watch_.watcher().active(c);
    measures_ = watch_.last_measures();
    calibrating_ = watch_.watcher().calibrating(EventLog::steady_seconds(now));
    ++measured_;
}

nlohmann::json WatchedStream::describe() const {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json active = nlohmann::json::array();
    for (const watch::Condition c : watch::kConditions)
        if (active_[static_cast<int>(c)]) active.push_back(watch::condition_name(c));
    return {{"conditions", active},
            {"calibrating", calibrating_},
            {"measured", measured_},
            {"measures", measures_ ? describe_measures(*measures_) : nlohmann::json(nullptr)}};
}

nlohmann::json WatchedStream::describe_history(double since_unix) const {
    nlohmann::json j = describe();
    j["history"] = history_.describe(since_unix);
    return j;
}

void WatchedStream::collect_metrics(MetricSet& set, const std::string& stream_label) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const watch::Condition c : watch::kConditions) {
        const std::string labels = join_labels(stream_label, metric_label("kind", watch::condition_name(c)));
        set.add("vfilter_stream_condition", "gauge", "1 while the stream's picture is in the condition (docs/serve.md, cameras that watch themselves).",
                active_[static_cast<int>(c)] ? 1 : 0, labels);
        set.add("vfilter_stream_events_total", "counter", "Conditions entered or left by the stream's picture since it started.",
                static_cast<double>(events_[static_cast<int>(c)]), labels);
    }
}

CameraWatchers::CameraWatchers(EventLog& log) : log_(log), thread_([this] { run(); }) {}

CameraWatchers::~CameraWatchers() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void CameraWatchers::add(const std::shared_ptr<WatchedStream>& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.push_back(stream);
}

void CameraWatchers::run() {
    name_this_thread("vf-watch");
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, kVisitEvery, [this] { return stop_; })) {
        std::vector<std::shared_ptr<WatchedStream>> alive;
        for (auto it = streams_.begin(); it != streams_.end();) {
            if (std::shared_ptr<WatchedStream> s = it->lock()) alive.push_back(std::move(s)), ++it;
            else it = streams_.erase(it);
        }
        lock.unlock();
        const auto now = std::chrono::steady_clock::now();
        for (const std::shared_ptr<WatchedStream>& s : alive) s->visit(now, log_);
        alive.clear();  // a stream removed meanwhile is let go here, outside the lock
        lock.lock();
    }
}

}  // namespace vf
