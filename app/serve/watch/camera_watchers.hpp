// Every served stream watching itself (docs/serve.md, "Cameras that watch themselves") on one
// thread of the process: a few times a second it asks each stream's input tap for the next
// decoded frame (media/frame_tap.hpp: ask_sample, never waiting), makes its luma thumbnail
// (frame_thumbnail.hpp: on the GPU for CUDA frames), feeds the stream's CameraWatch and logs the
// events it completes (event_log.hpp). The stream's own threads never wait for any of it: a
// frame is offered by one atomic load when no sample is asked, and a watch that falls behind
// measures less often.
#pragma once

#include <array>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/serve/watch/event_log.hpp"
#include "app/serve/watch/frame_thumbnail.hpp"
#include "app/serve/watch/measure_history.hpp"
#include "common/metric_set.hpp"
#include "media/frame_tap.hpp"
#include "pipeline/watch/stream_watcher.hpp"

namespace vf {

// One stream's watch: its CameraWatch and what it shows (/streams, /metrics). Held by its
// ServedStream; the watchers' thread visits it while it lives.
class WatchedStream {
public:
    // tap_owner keeps `tap` alive as long as this.
    WatchedStream(std::string stream, const watch::WatchSettings& settings, std::shared_ptr<void> tap_owner, FrameTap& tap,
                  std::shared_ptr<GpuRuntime> runtime, int gpu);
    ~WatchedStream() { tap_.drop_sample(); }  // a frame asked for is not held by the tap after it
    WatchedStream(const WatchedStream&) = delete;
    WatchedStream& operator=(const WatchedStream&) = delete;

    // Where each event goes too, as it is logged (the stream's clips: clip_recorder.hpp). Set
    // before CameraWatchers::add; called on the watchers' thread, so it must not wait.
    void on_event(std::function<void(const watch::WatchEvent&)> f) { on_event_ = std::move(f); }

    // One visit of the watchers' thread: asks for a frame when one is due, measures the one that
    // came; the events it completes go to `log`. Never waits.
    void visit(std::chrono::steady_clock::time_point now, EventLog& log);

    // {"conditions": [active...], "calibrating": bool, "measures": {...} or null, "measured": n}
    nlohmann::json describe() const;
    // GET /streams/NAME/watch: describe() and the measures of the last two minutes at or after
    // `since_unix` (measure_history.hpp).
    nlohmann::json describe_history(double since_unix) const;
    // vfilter_stream_condition{stream,kind} 0/1 and vfilter_stream_events_total{stream,kind}.
    void collect_metrics(MetricSet& set, const std::string& stream_label) const;

private:
    void observe(std::chrono::steady_clock::time_point now, const LumaThumbnail& t, EventLog& log);

    const std::string stream_;
    std::function<void(const watch::WatchEvent&)> on_event_;
    std::shared_ptr<void> tap_owner_;
    FrameTap& tap_;
    FrameThumbnailer thumbnailer_;  // the watchers' thread alone
    watch::CameraWatch watch_;      // the watchers' thread alone
    std::chrono::steady_clock::duration interval_;
    std::chrono::steady_clock::time_point next_due_{};
    bool asked_ = false, unmeasurable_logged_ = false;

    mutable std::mutex mutex_;  // what the API reads, below
    std::array<bool, watch::kConditionCount> active_{};
    std::array<int64_t, watch::kConditionCount> events_{};
    std::optional<watch::PictureMeasures> measures_;
    bool calibrating_ = true;
    int64_t measured_ = 0;
    MeasureHistory history_;  // locks itself
};

class CameraWatchers {
public:
    explicit CameraWatchers(EventLog& log);
    ~CameraWatchers();  // stops the thread
    CameraWatchers(const CameraWatchers&) = delete;
    CameraWatchers& operator=(const CameraWatchers&) = delete;

    // Visits `stream` from now on, until the last holder lets it go.
    void add(const std::shared_ptr<WatchedStream>& stream);
    EventLog& log() { return log_; }

    // How often the thread visits the streams: at least as often as any measures (30 a second at most).
    static constexpr std::chrono::milliseconds kVisitEvery{20};

private:
    void run();

    EventLog& log_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::vector<std::weak_ptr<WatchedStream>> streams_;
    std::thread thread_;  // last: started once the rest is made
};

}  // namespace vf
