#include "app/run/job.hpp"

#include "app/run/run_parts.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/http_server.hpp"
#include "common/redact.hpp"
#include "pipeline/live_metrics.hpp"

#include "config/filter_registry.hpp"
#include "decode/live_input.hpp"
#include "decode/pattern_url.hpp"
#include "encode/container.hpp"
#include "encode/deferred_sink.hpp"
#include "encode/output_file.hpp"
#include "encode/video_encoder.hpp"
#include "pipeline/pipeline.hpp"
#include "pipeline/progress.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {

namespace {

// The single-stream endpoint: /metrics (Prometheus), /healthz (the process answers), /readyz
// (the input delivers).
HttpResponse answer_single_stream(const HttpRequest& req, LiveMetrics* metrics, const Source* source) {
    HttpResponse r;
    if (req.method != "GET" && req.method != "HEAD") return {405, "text/plain; charset=utf-8", "only GET\n"};
    if (req.path == "/metrics") {
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = metrics ? metrics->render() : std::string("# vfilter is starting\n");
    } else if (req.path == "/healthz") {
        r.body = "ok\n";
    } else if (req.path == "/readyz") {
        const bool up = metrics && source && source->status().up;
        r.status = up ? 200 : 503;
        r.body = up ? "ready\n" : (metrics ? "the input is reconnecting\n" : "starting\n");
    } else {
        return {404, "text/plain; charset=utf-8", "vfilter serves /metrics, /healthz and /readyz\n"};
    }
    return r;
}

}  // namespace

struct Job::Parts {
    // The GPU the job filters on and its runtime: first in, last out, since the stages below hold
    // its memory and streams.
    std::shared_ptr<GpuRuntime> runtime;
    std::unique_ptr<HttpServer> metrics_server;  // first in, last out: it reads the parts below
    std::unique_ptr<Source> source;
    std::unique_ptr<FilterStage> filter;
    std::unique_ptr<Sink> sink;
    std::unique_ptr<Pipeline> pipeline;
    std::unique_ptr<LiveMetrics> metrics;
    std::atomic<LiveMetrics*> metrics_ready{nullptr};
    std::atomic<bool> interrupted{false};
    std::atomic<bool> abandon_requested{false};
    FrameGeometry geometry;          // of the input's frames: chains are built for it
    mutable std::mutex filter_mutex;  // chain, changed by set_filter from any thread
    FilterChain chain;

    ~Parts() { metrics_server.reset(); }
};

Job::Job(const RunOptions& o, std::shared_ptr<GpuRuntime> runtime) : Job(o, JobReports{}, nullptr, std::move(runtime)) {}

Job::Job(const RunOptions& o, const JobReports& reports, std::shared_ptr<GpuRuntime> runtime)
    : Job(o, reports, nullptr, std::move(runtime)) {}

Job::Job(const RunOptions& o, std::function<std::unique_ptr<Sink>(const VideoInfo&)> make_sink, std::shared_ptr<GpuRuntime> runtime)
    : Job(o, JobReports{}, std::move(make_sink), std::move(runtime)) {}

namespace {

// What the parts of a run must know of each other, but the GPU (Job's constructor adds it).
RunContext run_context(const RunOptions& o) {
    RunContext c;
    c.device = resolve_device(o.filter.device, o.filter.kernel);
    c.null_output = o.output.path == "null";
    c.low_latency = o.pipeline.low_latency;
    c.placement = o.placement;
    return c;
}

// Everything about the output that can be checked before the input is opened, so that a typo
// never costs opening a camera or truncating anything. Returns the queue's frames.
int check_before_opening(const RunOptions& o, const JobReports& reports, const RunContext& c, OutputOptions& out) {
    const int queue_frames = o.pipeline.queue_frames.value_or(kDefaultQueueFrames);
    if (queue_frames < 1 || queue_frames > 256) fail(ErrorCategory::Usage, "--queue must be in 1..256");
    if (o.output.segment_s > 0 && (c.null_output || o.output.path == "-"))
        fail(ErrorCategory::Usage, "--segment needs an output file name");
    check_retention_fits(o.output);
    if (!c.null_output) {
        // A camera, or the built-in pattern (live and endless); known for sure once the source is
        // open, and checked again then.
        out.live = is_live_url(o.input.url) || is_pattern_url(o.input.url);
        if (!out.packets_only) check_output_path(out);  // clips alone write no file of that name
        find_video_encoder(o.output.codec);
        check_codec_fits_container(out, output_kind(out.path));
    }
    if (!reports.stats_json.empty()) {
        std::ofstream probe(reports.stats_json, std::ios::app);
        if (!probe) fail(ErrorCategory::Output, "cannot write --stats-json file '" + reports.stats_json + "'");
    }
    return queue_frames;
}

// Names from the wall clock, to the second, are unique only when segments start well over a
// second apart in real time: a file is read faster than that, and the encoder's flush at the
// end writes up to a second of frames at once; colliding names would overwrite recordings.
void check_segment_names(const RunOutput& out, bool live) {
    if (out.segment_s > 0 && dated_pattern(out.path) && (!live || out.segment_s < 2))
        fail(ErrorCategory::Usage, "--segment with dated names (%Y, %H, ...) needs a live input and segments of at least "
                                   "2 s, or later segments would take earlier ones' names; number them instead, e.g. rec-%05d.mp4");
}

FrameGeometry geometry_of(const VideoInfo& v) {
    FrameGeometry geometry;
    geometry.width = v.width;
    geometry.height = v.height;
    if (const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(v.format))
        geometry.log2_chroma_w = desc->log2_chroma_w, geometry.log2_chroma_h = desc->log2_chroma_h,
        geometry.rgb = desc->flags & AV_PIX_FMT_FLAG_RGB;
    return geometry;
}

}  // namespace

void Job::start_metrics_server(const MetricsEndpoint& endpoint) {
    Parts* parts = parts_.get();
    HttpServerOptions ho;
    ho.bind = endpoint.bind;
    ho.port = endpoint.port;
    ho.option = "--metrics-port";
    ho.inline_paths = {"/healthz", "/readyz"};  // answered while a slow scrape holds the workers
    parts_->metrics_server = std::make_unique<HttpServer>(ho, [parts](const HttpRequest& req) {
        LiveMetrics* m = parts->metrics_ready;
        return answer_single_stream(req, m, m ? parts->source.get() : nullptr);
    });
    spdlog::info("metrics: http://{}:{}/metrics", endpoint.bind, parts_->metrics_server->port());
}

Job::Job(const RunOptions& o, const JobReports& reports, std::function<std::unique_ptr<Sink>(const VideoInfo&)> make_sink,
         std::shared_ptr<GpuRuntime> runtime)
    : options_(o), reports_(reports), parts_(std::make_unique<Parts>()) {
    if (make_sink && o.output.path != "null") fail(ErrorCategory::Internal, "a job with its own sink has no output");
    // Cheap checks first, so a typo never costs opening a camera or truncating anything.
    std::vector<FilterPlan> chain = plan_chain(o.filter.chain.spec(), o.filter.compat, {}, o.filter.kernel_files);
    if (const std::string why = forced_kernel_problem(chain, o.filter.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    RunContext context = run_context(o);
    if (context.device == Device::Cuda) {
        parts_->runtime = runtime ? std::move(runtime) : std::make_shared<GpuRuntime>();
        context.gpu_device = parts_->runtime->device(o.placement.gpu);
#ifdef VF_HAVE_CUDA
        std::string why;
        if (!select_gpu(o.placement.gpu, &why)) fail(ErrorCategory::Device, why);
#endif
    }
    OutputOptions out = output_options(o.output, o.input, context);
    const int queue_frames = check_before_opening(o, reports, context, out);
    if (reports.metrics.port >= 0) start_metrics_server(reports.metrics);

    // The source.
    SourcePart source = make_source(o.input, o.output, context, queue_frames, gpu_frames_of(o.filter, context));
    parts_->source = std::move(source.source);
    queue_frames_ = source.queue_frames;
    spdlog::info("input: {}", parts_->source->describe());
    const bool live = parts_->source->live();
    const OverloadPolicy overload = o.pipeline.on_overload;
    drop_when_behind_ = overload == OverloadPolicy::Drop || (overload == OverloadPolicy::Auto && live);
    if (live) spdlog::info("live input: frames are {} when filtering falls behind", drop_when_behind_ ? "dropped" : "queued");
    output_options_for_input(out, o.output, o.input, live);
    check_segment_names(o.output, live);

    // The filter stage, its chain planned for the frames the input gives: options such as
    // boxblur's radius expressions of w and h were only checked for their syntax above.
    parts_->geometry = geometry_of(parts_->source->video());
    chain = plan_chain(o.filter.chain.spec(), o.filter.compat, parts_->geometry, o.filter.kernel_files);
    if (const std::string why = forced_kernel_problem(chain, o.filter.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    parts_->chain = o.filter.chain;
    // enable='...t...' as FFmpeg's filters see t: from the input's start, or (vfilter ffmpeg's
    // -ss/-t/-to, whose cut shifts the frames) from the input's -ss.
    const TimeWindow& window = o.input.window;
    const double time_origin = window.limits() ? -window.output_start.value_or(0) : parts_->source->video().start_s;
    parts_->filter = make_filter_stage(o.filter, std::move(chain), context, parts_->source->video().time_base, time_origin);
    if (context.device == Device::Cuda)
        spdlog::info("filters run on the GPU (CUDA), {} streams in flight", gpu_frames_of(o.filter, context));
    else
        spdlog::info("filters run on the CPU");
    for (const FilterPlan& p : parts_->filter->chain()) spdlog::info("filter: {}", p.description);

    // The sink.
    if (make_sink) {
        parts_->sink = make_sink(parts_->source->video());
    } else {
        // vfilter ffmpeg's -s and -r: the output is made for the frames they give.
        const VideoInfo video = parts_->source->video();
        const OutputConversion conversion = output_conversion(o, video, context.null_output);
        const VideoInfo written = conversion.any() ? converted_info(video, conversion) : video;
        Source* source = parts_->source.get();
        auto make = [out, written, video, conversion, source, null_output = context.null_output]() -> std::unique_ptr<Sink> {
            std::unique_ptr<Sink> sink;
            if (null_output)
                sink = std::make_unique<NullSink>();
            else
                sink = std::make_unique<OutputFile>(out, written, source->passthrough(), source->metadata());
            if (conversion.any()) sink = std::make_unique<ConvertingSink>(std::move(sink), video, conversion);
            return sink;
        };
        // A camera read in standby (a shard about to take it over) opens its output at its first frame.
        const std::shared_ptr<RecordingWindow>& window = o.placement.recording_window;
        if (window && window->standby())
            parts_->sink = std::make_unique<DeferredSink>(make, "opened at the first frame written (standby)");
        else
            parts_->sink = make();
    }
    spdlog::info("output: {}", parts_->sink->describe());
    PipelineOptions po;
    po.queue_frames = static_cast<size_t>(queue_frames_);
    po.max_frames = o.output.rate_num > 0 ? 0 : o.pipeline.max_frames;  // with -r, the frames written are counted
    po.drop_when_behind = drop_when_behind_;
    po.window = o.input.window;
    po.recording_window = o.placement.recording_window;
    parts_->pipeline = std::make_unique<Pipeline>(*parts_->source, *parts_->filter, *parts_->sink, po);
    parts_->metrics = std::make_unique<LiveMetrics>(*parts_->pipeline, *parts_->source, *parts_->sink);
    parts_->metrics_ready = parts_->metrics.get();
}

Job::~Job() = default;

void Job::interrupt() {
    parts_->interrupted = true;
    parts_->source->stop();
}

int Job::metrics_port() const { return parts_->metrics_server ? parts_->metrics_server->port() : -1; }

int64_t Job::frames_in() const { return parts_->pipeline->progress().frames_in; }

JobStatus Job::status() const {
    JobStatus s;
    const PipelineProgress& p = parts_->pipeline->progress();
    s.frames_in = p.frames_in;
    s.frames_out = p.frames_out;
    s.frames_dropped = p.frames_dropped;
    s.fps = parts_->metrics->fps();
    s.reconnects = parts_->source->status().reconnects;
    s.source_up = parts_->source->status().up;
    s.on_gpu = parts_->filter->device() == Device::Cuda;
    s.latency_p99_ms = parts_->sink->latency().percentile(99);
    s.latency_recent_p99_ms = parts_->sink->latency().recent_percentile(99);
    const PipelineProgress::LatencyParts& parts = p.latency_parts;
    s.decode_recent_p99_ms = parts.decode.recent_percentile(99);
    s.queue_recent_p99_ms = parts.queue.recent_percentile(99);
    s.filter_recent_p99_ms = parts.filter.recent_percentile(99);
    s.write_recent_p99_ms = parts.write.recent_percentile(99);
    return s;
}

void Job::tap_frames(FrameTap* input, FrameTap* output, PacketTap* packets) { parts_->pipeline->tap(input, output, packets); }

void Job::collect_metrics(MetricSet& set, const std::string& labels) const { parts_->metrics->collect(set, labels); }

void Job::set_filter(const FilterChain& compiled, const KernelFiles& files) {
    // Planned for the input's frames from the compiled chain: nothing is parsed here.
    std::vector<FilterPlan> chain = plan_chain(compiled.spec(), options_.filter.compat, parts_->geometry, files);  // throws on a bad chain
    if (const std::string why = forced_kernel_problem(chain, options_.filter.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    std::lock_guard<std::mutex> lock(parts_->filter_mutex);
    parts_->filter->set_chain(std::move(chain));
    parts_->chain = compiled;
    spdlog::info("filter changed to '{}' from the next frame", compiled.text());
}

const VideoInfo& Job::video() const { return parts_->source->video(); }
bool Job::decodes_on_nvdec() const { return parts_->source->hw_decode() == "cuda"; }
bool Job::waits_for_nvdec() const { return parts_->source->waits_for_nvdec(); }
bool Job::request_decoder_move(bool nvdec) { return parts_->source->request_decoder_move(nvdec); }
void Job::on_decoder_moved(std::function<void(bool nvdec)> moved) { parts_->source->on_decoder_moved(std::move(moved)); }

std::string Job::filter() const {
    std::lock_guard<std::mutex> lock(parts_->filter_mutex);
    return parts_->chain.text();
}

void Job::abandon() {
    parts_->interrupted = true;
    parts_->abandon_requested = true;
    parts_->pipeline->abandon();  // stops the source too
}

JobResult Job::run() {
    Pipeline& pipeline = *parts_->pipeline;
    JobResult r;
    {
        ProgressReporter progress(pipeline.progress(), parts_->source->video(), reports_.progress_line);
        r.stats = pipeline.run();
    }
    r.abandoned = parts_->abandon_requested;
    const DecodeHealth health = parts_->source->health();
    r.damaged = health.damaged();
    r.interrupted = parts_->interrupted;
    r.stats.damage = health.summary();
    r.stats.input = parts_->source->describe();
    r.stats.output = parts_->sink->describe();
    r.stats.filters = filter();
    if (!reports_.stats_json.empty()) {
        std::ofstream f(reports_.stats_json, std::ios::trunc);
        f << redact_credentials(to_json(r.stats).dump(2)) << "\n";
        if (!f) fail(ErrorCategory::Output, "writing --stats-json file '" + reports_.stats_json + "' failed");
    }
    return r;
}

}  // namespace vf
