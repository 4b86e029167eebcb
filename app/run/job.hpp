// One complete run from RunOptions: build source, filter chain and sink, run the pipeline,
// report what its process asks (JobReports). Separate from main() so tests drive exactly what the
// command line drives.
#pragma once

#include <functional>
#include <memory>

#include "app/run/process_options.hpp"
#include "common/metric_set.hpp"
#include "config/options.hpp"
#include "decode/source.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "pipeline/stats.hpp"

namespace vf {

struct JobResult {
    RunStats stats;
    bool damaged = false;      // finished, but some input could not be decoded (exit code 5)
    bool interrupted = false;  // stopped early on request; the output is still complete
    bool abandoned = false;    // stopped at once (second signal): frames in flight were discarded
};

// What a running job reports while it runs (vfilter serve's GET /streams).
struct JobStatus {
    int64_t frames_in = 0, frames_out = 0, frames_dropped = 0;
    double fps = 0;           // frames written per second, over the last half second or more
    int64_t reconnects = 0;
    bool source_up = true;    // false while a live input reconnects
    bool on_gpu = false;      // its filters run on the GPU
    double latency_p99_ms = 0;         // read to written, steady state since the start
    double latency_recent_p99_ms = 0;  // the same over the last 10 s (LatencyLog)
    // Its parts over the last 10 s (PipelineProgress::latency_parts): p99 of each on its own.
    double decode_recent_p99_ms = 0, queue_recent_p99_ms = 0, filter_recent_p99_ms = 0, write_recent_p99_ms = 0;
};

class Sink;
class FrameTap;
class PacketTap;

class Job {
public:
    // Checks everything it can before any work. GPU work runs on `runtime`, the entry point's
    // (pipeline/gpu_runtime.hpp); empty: the job makes one of its own when it filters on a GPU.
    // It reports nothing beyond its JobResult.
    explicit Job(const RunOptions& options, std::shared_ptr<GpuRuntime> runtime = nullptr);
    // Also shows a progress line, writes its summary, serves its metrics as `reports` asks.
    Job(const RunOptions& options, const JobReports& reports, std::shared_ptr<GpuRuntime> runtime = nullptr);
    // Filtered frames go to the sink `make_sink` makes instead of an output (the Python module's
    // frame iterator); options.output must be "null".
    Job(const RunOptions& options, std::function<std::unique_ptr<Sink>(const VideoInfo&)> make_sink,
        std::shared_ptr<GpuRuntime> runtime = nullptr);
    ~Job();
    JobResult run();
    void interrupt();  // any thread: stop reading; what is in flight is filtered and written
    void abandon();    // any thread: discard what is in flight, finish the output now
    int metrics_port() const;  // the port its metrics endpoint serves on (0 chooses one), or -1
    JobStatus status() const;  // any thread, while run() runs or after
    int64_t frames_in() const;  // frames its input gave so far; any thread (cheaper than status())
    // This job's Prometheus samples, each with `labels` (serve: stream="NAME").
    void collect_metrics(MetricSet& set, const std::string& labels) const;
    // Replaces the filter chain (compiled by the caller) from the next frame on, without touching
    // the output. Throws Error(Usage) for a chain that does not fit the frames; nothing changes then.
    void set_filter(const FilterChain& chain, const KernelFiles& files = {});
    std::string filter() const;  // the chain's text
    // The input's video as the first connection described it (size, frame rate, format).
    const VideoInfo& video() const;
    bool decodes_on_nvdec() const;  // its input decodes on NVDEC (known once the job is made)
    bool waits_for_nvdec() const;   // on the CPU until a shared NVDEC decoder has room (Source::waits_for_nvdec)
    // serve: moves its input's decoding to NVDEC or the CPU at the next key frame
    // (Source::request_decoder_move); false when it cannot move. `moved` is told where it then
    // decodes, on the decode thread; set it before run().
    bool request_decoder_move(bool nvdec);
    void on_decoder_moved(std::function<void(bool nvdec)> moved);
    // Previews: frames entering the filter stage are offered to `input`, frames going to the
    // output to `output` (either may be null). Call before run(); the taps must outlive it.
    void tap_frames(FrameTap* input, FrameTap* output, PacketTap* packets);

private:
    struct Parts;
    Job(const RunOptions& options, const JobReports& reports, std::function<std::unique_ptr<Sink>(const VideoInfo&)> make_sink,
        std::shared_ptr<GpuRuntime> runtime);
    void start_metrics_server(const MetricsEndpoint& endpoint);  // /metrics, /healthz, /readyz
    RunOptions options_;
    JobReports reports_;
    int queue_frames_ = 8;  // options_.queue_frames, or fewer with NVDEC or --low-latency
    bool drop_when_behind_ = false;
    std::unique_ptr<Parts> parts_;
};

}  // namespace vf
