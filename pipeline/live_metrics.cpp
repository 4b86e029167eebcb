#include "pipeline/live_metrics.hpp"

#include <algorithm>
#include <cstdio>

namespace vf {
namespace {

// One metric family: its HELP and TYPE lines, then a sample per label set.
void family(std::string& out, const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}
void sample(std::string& out, const char* name, double value, const std::string& labels = "") {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.6g\n", value);
    out += name + labels + buf;
}
void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
    family(out, name, type, help);
    sample(out, name, value);
}

}  // namespace

std::string LiveMetrics::render() {
    const PipelineProgress& p = pipeline_.progress();
    const Clock::time_point now = Clock::now();
    const int64_t out_frames = p.frames_out;
    double fps;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (last_at_ == Clock::time_point{}) last_at_ = p.started_at;
        const double dt = std::chrono::duration<double>(now - last_at_).count();
        if (dt >= 0.5) {  // scrapes closer than that keep the previous rate
            fps_ = (out_frames - last_frames_) / dt;
            last_at_ = now;
            last_frames_ = out_frames;
        }
        fps = fps_;
    }
    const double wall = std::chrono::duration<double>(now - p.started_at).count();
    std::string out;
    metric(out, "vfilter_frames_in_total", "counter", "Video frames decoded.", static_cast<double>(p.frames_in));
    metric(out, "vfilter_frames_out_total", "counter", "Video frames filtered and written.", static_cast<double>(out_frames));
    metric(out, "vfilter_frames_dropped_total", "counter", "Frames dropped because processing fell behind a live input.",
           static_cast<double>(p.frames_dropped));
    metric(out, "vfilter_fps", "gauge", "Frames written per second since the previous scrape.", fps);
    const StageClock* stages[] = {&p.decode, &p.filter, &p.encode};
    family(out, "vfilter_stage_busy_ratio", "gauge", "Share of wall time each stage was busy.");
    for (const StageClock* c : stages)
        sample(out, "vfilter_stage_busy_ratio", wall > 0 ? c->busy_ns / 1e9 / wall : 0, "{stage=\"" + c->name + "\"}");
    family(out, "vfilter_stage_seconds_per_frame", "gauge", "Mean busy time per frame of each stage.");
    for (const StageClock* c : stages) {
        const int64_t frames = std::max<int64_t>(1, p.frames_in);
        sample(out, "vfilter_stage_seconds_per_frame", c->busy_ns / 1e9 / static_cast<double>(frames), "{stage=\"" + c->name + "\"}");
    }
    family(out, "vfilter_latency_seconds", "gauge", "Latency from reading a frame to writing it, by quantile.");
    sample(out, "vfilter_latency_seconds", sink_.latency().percentile(50) / 1e3, "{quantile=\"0.5\"}");
    sample(out, "vfilter_latency_seconds", sink_.latency().percentile(99) / 1e3, "{quantile=\"0.99\"}");
    metric(out, "vfilter_reconnects_total", "counter", "Times the live input came back after going down.",
           static_cast<double>(source_.status().reconnects));
    metric(out, "vfilter_damaged_at_cuts_total", "counter",
           "Frames and packets damaged where the live input was cut (the last one sent, the first after the reconnect).",
           static_cast<double>(source_.status().damaged_at_cuts));
    metric(out, "vfilter_source_up", "gauge", "1 while the input delivers, 0 while reconnecting.", source_.status().up ? 1 : 0);
    metric(out, "vfilter_uptime_seconds", "gauge", "Seconds since the run started.", wall);
    return out;
}

}  // namespace vf
