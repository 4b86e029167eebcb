#include "app/job.hpp"

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
#include "decode/file_source.hpp"
#include "decode/synthetic_source.hpp"
#include "encode/output_file.hpp"
#include "encode/video_encoder.hpp"
#include "media/host_memory.hpp"
#include "pipeline/pipeline.hpp"
#include "pipeline/progress.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {

namespace {

// auto: the GPU when this build has CUDA and a device answers, else the CPU (said in one line).
Device resolve_device(DeviceChoice choice, const KernelChoice& kernel) {
    if (!kernel.is_auto() && choice == DeviceChoice::Cpu)
        fail(ErrorCategory::Usage, "--kernel selects a GPU path; it needs --device cuda");
    if (choice == DeviceChoice::Cpu) return Device::Cpu;
#ifdef VF_HAVE_CUDA
    std::string why;
    if (cuda_device_available(&why)) return Device::Cuda;
    if (choice == DeviceChoice::Cuda) fail(ErrorCategory::Device, "--device cuda: " + why);
    spdlog::info("{}; filtering on the CPU", why);
#else
    if (choice == DeviceChoice::Cuda)
        fail(ErrorCategory::Device, "--device cuda: this vfilter was built without CUDA; use --device cpu");
#endif
    return Device::Cpu;
}

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
    mutable std::mutex filter_mutex;  // filter_text, changed by set_filter from any thread
    std::string filter_text;

    ~Parts() { metrics_server.reset(); }
};

Job::Job(const RunOptions& o) : Job(o, nullptr) {}

Job::Job(const RunOptions& o, std::function<std::unique_ptr<Sink>(const VideoInfo&)> make_sink) : options_(o), parts_(std::make_unique<Parts>()) {
    if (make_sink && o.output != "null") fail(ErrorCategory::Internal, "a job with its own sink has no output");
    // Cheap checks first, so a typo never costs opening a camera or truncating anything.
    std::vector<FilterPlan> chain = build_chain(o.filter, o.compat);
    if (const std::string why = forced_kernel_problem(chain, o.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    const Device device = resolve_device(o.device, o.kernel);
#ifdef VF_HAVE_CUDA
    if (device == Device::Cuda) {
        std::string why;
        if (!select_gpu(o.gpu_index, &why)) fail(ErrorCategory::Device, why);
    }
#endif
    if (o.queue_frames < 1 || o.queue_frames > 256) fail(ErrorCategory::Usage, "--queue must be in 1..256");
    const bool null_out = o.output == "null";
    if (o.segment_s > 0 && (null_out || o.output == "-")) fail(ErrorCategory::Usage, "--segment needs an output file name");
    if (o.metrics_port >= 0) {
        Parts* parts = parts_.get();
        HttpServerOptions ho;
        ho.bind = o.metrics_bind;
        ho.port = o.metrics_port;
        ho.option = "--metrics-port";
        parts_->metrics_server = std::make_unique<HttpServer>(ho, [parts](const HttpRequest& req) {
            LiveMetrics* m = parts->metrics_ready;
            return answer_single_stream(req, m, m ? parts->source.get() : nullptr);
        });
        spdlog::info("metrics: http://{}:{}/metrics", o.metrics_bind, parts_->metrics_server->port());
    }
    OutputOptions out;
    out.path = o.output;
    out.format = o.out_format;
    out.segment_s = o.segment_s;
    out.low_latency = o.low_latency;
    out.input_path = o.input;
    out.overwrite = o.overwrite;
    out.codec = o.codec;
    out.prefer_nvenc = device == Device::Cuda;
    out.crf = o.crf;
    out.preset = o.preset;
    out.bitrate = o.bitrate;
    out.encoder_threads = o.encoder_threads;
    if (!null_out) {
        check_output_path(out);
        find_video_encoder(o.codec);
    }
    if (!o.stats_json.empty()) {
        std::ofstream probe(o.stats_json, std::ios::app);
        if (!probe) fail(ErrorCategory::Output, "cannot write --stats-json file '" + o.stats_json + "'");
    }

    HwDecode hwdec = o.hwdec;
    if (hwdec == HwDecode::Cuda && device != Device::Cuda)
        fail(ErrorCategory::Usage, "--hwdec cuda decodes into GPU memory for the GPU filters; it needs --device cuda (or auto with a GPU)");
    if (device != Device::Cuda) hwdec = HwDecode::None;
    // Frames for the GPU land in page-locked memory, so their upload is a DMA with no host copy.
    const BufferAllocator host_alloc = device == Device::Cuda ? pinned_buffer_alloc : nullptr;
    int queue = o.low_latency ? std::min(o.queue_frames, 2) : o.queue_frames;
    if (o.input.empty()) {
        parts_->source = std::make_unique<SyntheticSource>(1280, 720, 30, 300, AV_PIX_FMT_YUV420P, host_alloc);
    } else {
        FileSourceOptions in;
        in.url = o.input;
        in.passthrough_audio = !o.no_audio && !null_out;
        in.frame_alloc = host_alloc;
        in.decoder_threads = o.decoder_threads;
        in.software_decoder_threads = o.decoder_thread_share;
        in.gpu_index = o.gpu_index;
        in.allowed_protocols = o.allow_protocols;
        in.timeout_s = o.timeout_s;
        in.hwdec = hwdec;
        in.live.rtsp_transport = o.rtsp_transport;
        in.live.input_size = o.input_size;
        in.live.input_fps = o.input_fps;
        in.live.input_format = o.input_format;
        in.live.low_latency = o.low_latency;
        in.realtime = o.realtime;
        in.reconnect_max = o.reconnect_max;
        in.reconnect_delay_s = o.reconnect_delay_s;
        // NVDEC has a few dozen surfaces; every decoded frame queued or in flight holds one.
        if (hwdec != HwDecode::None) queue = std::min(queue, 4);
        in.hw_frames_held = queue + o.gpu_streams + 1;
        parts_->source = std::make_unique<FileSource>(in);
    }
    queue_frames_ = queue;
    spdlog::info("input: {}", parts_->source->describe());
    const bool live = parts_->source->live();
    drop_when_behind_ = o.on_overload == OverloadPolicy::Drop || (o.on_overload == OverloadPolicy::Auto && live);
    if (live) spdlog::info("live input: frames are {} when filtering falls behind", drop_when_behind_ ? "dropped" : "queued");
    out.live = live;
    // Names from the wall clock, to the second, are unique only when segments start well over a
    // second apart in real time: a file is read faster than that, and the encoder's flush at the
    // end writes up to a second of frames at once; colliding names would overwrite recordings.
    if (o.segment_s > 0 && dated_pattern(o.output) && (!live || o.segment_s < 2))
        fail(ErrorCategory::Usage, "--segment with dated names (%Y, %H, ...) needs a live input and segments of at least "
                                   "2 s, or later segments would take earlier ones' names; number them instead, e.g. rec-%05d.mp4");
    out.fragmented = o.fragmented == FragmentedMode::Yes ||
                     (o.fragmented == FragmentedMode::Auto && live && output_kind(o.output) == OutputKind::File);
    if (o.timeout_s >= 0) out.timeout_s = o.timeout_s;  // 0: never, as for inputs
    // Built again for the frames the input gives: options such as boxblur's radius expressions
    // of w and h were only checked for their syntax above.
    {
        const VideoInfo& v = parts_->source->video();
        const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(v.format);
        FrameGeometry geometry;
        geometry.width = v.width;
        geometry.height = v.height;
        if (desc) geometry.log2_chroma_w = desc->log2_chroma_w, geometry.log2_chroma_h = desc->log2_chroma_h;
        chain = build_chain(o.filter, o.compat, geometry);
        if (const std::string why = forced_kernel_problem(chain, o.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
        parts_->geometry = geometry;
        parts_->filter_text = o.filter;
    }
    FilterStageOptions fo;
    fo.device = device;
    fo.threads = o.threads;
    fo.gpu_kernel = o.kernel;
    fo.gpu_index = o.gpu_index;
    fo.gpu_batch_wait_us = o.batch_wait_us;
    fo.gpu_output_on_device = o.frames_on_device;
    if (o.frames_on_device && device != Device::Cuda)
        fail(ErrorCategory::Usage, "frames on the GPU need the GPU filter stage (device cuda)");
    fo.gpu_streams = o.low_latency ? std::min(o.gpu_streams, 2) : o.gpu_streams;
    parts_->filter = std::make_unique<FilterStage>(std::move(chain), fo);
    if (device == Device::Cuda)
        spdlog::info("filters run on the GPU (CUDA), {} streams in flight", o.gpu_streams);
    else
        spdlog::info("filters run on the CPU");
    for (const FilterPlan& p : parts_->filter->chain()) spdlog::info("filter: {}", p.description);
    if (make_sink) {
        parts_->sink = make_sink(parts_->source->video());
    } else if (null_out) {
        parts_->sink = std::make_unique<NullSink>();
    } else {
        parts_->sink = std::make_unique<OutputFile>(out, parts_->source->video(), parts_->source->passthrough(),
                                                    parts_->source->metadata());
    }
    spdlog::info("output: {}", parts_->sink->describe());
    PipelineOptions po;
    po.queue_frames = static_cast<size_t>(queue_frames_);
    po.max_frames = o.max_frames;
    po.drop_when_behind = drop_when_behind_;
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
    return s;
}

void Job::tap_frames(FrameTap* input, FrameTap* output) { parts_->pipeline->tap(input, output); }

void Job::collect_metrics(MetricSet& set, const std::string& labels) const { parts_->metrics->collect(set, labels); }

void Job::set_filter(const std::string& text) {
    std::vector<FilterPlan> chain = build_chain(text, options_.compat, parts_->geometry);  // throws on a bad chain
    if (const std::string why = forced_kernel_problem(chain, options_.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    std::lock_guard<std::mutex> lock(parts_->filter_mutex);
    parts_->filter->set_chain(std::move(chain));
    parts_->filter_text = text;
    spdlog::info("filter changed to '{}' from the next frame", text);
}

std::string Job::filter() const {
    std::lock_guard<std::mutex> lock(parts_->filter_mutex);
    return parts_->filter_text;
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
        ProgressReporter progress(pipeline.progress(), parts_->source->video(), options_.progress && options_.verbosity >= 0);
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
    if (!options_.stats_json.empty()) {
        std::ofstream f(options_.stats_json, std::ios::trunc);
        f << redact_credentials(to_json(r.stats).dump(2)) << "\n";
        if (!f) fail(ErrorCategory::Output, "writing --stats-json file '" + options_.stats_json + "' failed");
    }
    return r;
}

}  // namespace vf
