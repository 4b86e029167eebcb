#include "pipeline/live_metrics.hpp"

#include <algorithm>

namespace vf {

double LiveMetrics::fps() {
    const PipelineProgress& p = pipeline_.progress();
    const Clock::time_point now = Clock::now();
    const int64_t out_frames = p.frames_out;
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_at_ == Clock::time_point{}) last_at_ = p.started_at.load();
    const double dt = std::chrono::duration<double>(now - last_at_).count();
    if (dt >= 0.5) {  // scrapes closer than that keep the previous rate
        fps_ = (out_frames - last_frames_) / dt;
        last_at_ = now;
        last_frames_ = out_frames;
    }
    return fps_;
}

void LiveMetrics::collect_counters(MetricSet& set, const std::string& labels, int64_t frames_in, int64_t frames_out,
                                   int64_t frames_dropped, bool source_up) {
    set.add("vfilter_frames_in_total", "counter", "Video frames decoded.", static_cast<double>(frames_in), labels);
    set.add("vfilter_frames_out_total", "counter", "Video frames filtered and written.", static_cast<double>(frames_out), labels);
    set.add("vfilter_frames_dropped_total", "counter", "Frames dropped because processing fell behind a live input.",
            static_cast<double>(frames_dropped), labels);
    set.add("vfilter_source_up", "gauge", "1 while the input delivers, 0 while reconnecting.", source_up ? 1 : 0, labels);
}

void LiveMetrics::collect(MetricSet& set, const std::string& labels) {
    const PipelineProgress& p = pipeline_.progress();
    const double fps_now = fps();
    const double wall = std::chrono::duration<double>(Clock::now() - p.started_at.load()).count();
    collect_counters(set, labels, p.frames_in, p.frames_out, p.frames_dropped, source_.status().up);
    set.add("vfilter_fps", "gauge", "Frames written per second since the previous scrape.", fps_now, labels);
    const StageClock* stages[] = {&p.decode, &p.filter, &p.encode};
    for (const StageClock* c : stages)
        set.add("vfilter_stage_busy_ratio", "gauge", "Share of wall time each stage was busy.",
                wall > 0 ? c->busy_ns / 1e9 / wall : 0, join_labels(labels, metric_label("stage", c->name)));
    for (const StageClock* c : stages) {
        const int64_t frames = std::max<int64_t>(1, p.frames_in);
        set.add("vfilter_stage_seconds_per_frame", "gauge", "Mean busy time per frame of each stage.",
                c->busy_ns / 1e9 / static_cast<double>(frames), join_labels(labels, metric_label("stage", c->name)));
    }
    set.add("vfilter_latency_seconds", "gauge", "Latency from reading a frame to writing it, by quantile.",
            sink_.latency().percentile(50) / 1e3, join_labels(labels, "quantile=\"0.5\""));
    set.add("vfilter_latency_seconds", "gauge", "Latency from reading a frame to writing it, by quantile.",
            sink_.latency().percentile(99) / 1e3, join_labels(labels, "quantile=\"0.99\""));
    for (const double q : {50.0, 99.0})
        set.add("vfilter_latency_recent_seconds", "gauge", "Latency from reading a frame to writing it over the last 10 s, by quantile.",
                sink_.latency().recent_percentile(q) / 1e3, join_labels(labels, q == 50 ? "quantile=\"0.5\"" : "quantile=\"0.99\""));
    set.add("vfilter_reconnects_total", "counter", "Times the live input came back after going down.",
            static_cast<double>(source_.status().reconnects), labels);
    set.add("vfilter_damaged_at_cuts_total", "counter",
            "Frames and packets damaged where the live input was cut (the last one sent, the first after the reconnect).",
            static_cast<double>(source_.status().damaged_at_cuts), labels);
    set.add("vfilter_uptime_seconds", "gauge", "Seconds since the run started.", wall, labels);
}

}  // namespace vf
