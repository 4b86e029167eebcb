#include "pipeline/pipeline.hpp"

#include "common/logging.hpp"
#include "common/thread_name.hpp"

#include <spdlog/spdlog.h>

#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "pipeline/bounded_queue.hpp"
#include "pipeline/time_cut.hpp"

namespace vf {
namespace {

int64_t ns_since(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
}

// Records the first failure and wakes every stage so they all wind down.
class FailureLatch {
public:
    template <typename Fn>
    void guard(Fn&& fn, const std::function<void()>& abort_all) {
        try {
            fn();
        } catch (...) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_) error_ = std::current_exception();
            }
            abort_all();
        }
    }
    void rethrow() {
        if (error_) std::rethrow_exception(error_);
    }
    void clear() { error_ = nullptr; }

private:
    std::mutex mutex_;
    std::exception_ptr error_;
};

}  // namespace

Pipeline::Pipeline(Source& source, FilterStage& filter, Sink& sink, PipelineOptions options)
    : source_(source), filter_(filter), sink_(sink), options_(options) {}

void Pipeline::abandon() {
    source_.stop();
    sink_.hurry();
    std::lock_guard<std::mutex> lock(queues_mutex_);
    abandoned_ = true;
    if (decoded_) decoded_->abort();
    if (filtered_) filtered_->abort();
}

// One call of run(): its queues, its first failure and what it counted.
struct Pipeline::Run {
    explicit Run(size_t queue_frames) : decoded(queue_frames), filtered(queue_frames) {}
    BoundedQueue<PipelineItem> decoded, filtered;
    FailureLatch failure;
    // A GPU failure (Device errors: out of memory, a lost device) stops the input but lets the
    // encoder finish what was already filtered, so the output is finalised, then the run fails.
    std::exception_ptr device_failure;
    int64_t frames_in = 0, packets = 0;
    int64_t warmup = 30;  // frames before the sustained rate is measured
    Clock::time_point start, warm_at{}, last_at{};
    AVRational time_base{1, 1};
};

RunStats Pipeline::run() {
    Run run(options_.queue_frames);
    {
        std::lock_guard<std::mutex> lock(queues_mutex_);
        decoded_ = &run.decoded;
        filtered_ = &run.filtered;
        if (abandoned_) run.decoded.abort(), run.filtered.abort();
    }
    struct Forget {  // the queues die with this call
        Pipeline* p;
        ~Forget() {
            std::lock_guard<std::mutex> lock(p->queues_mutex_);
            p->decoded_ = p->filtered_ = nullptr;
        }
    } forget{this};
    run.start = Clock::now();
    progress_.started_at = run.start;
    run.time_base = source_.video().time_base;
    const int64_t expected = source_.video().expected_frames;
    run.warmup = expected > 0 ? std::clamp<int64_t>(expected / 10, 1, 30) : 30;
    sink_.set_latency_warmup(run.warmup);

    const std::string stream = log_stream();  // the stage threads log for the same stream
    std::thread decode_thread([&] { name_this_thread("vf-decode"); set_log_stream(stream); run.failure.guard([&] { decode_loop(run); }, [&] { abort_all(run); }); });
    std::thread filter_thread([&] { name_this_thread("vf-filter"); set_log_stream(stream); run.failure.guard([&] { filter_loop(run); }, [&] { abort_all(run); }); });
    std::thread encode_thread([&] { name_this_thread("vf-encode"); set_log_stream(stream); run.failure.guard([&] { encode_loop(run); }, [&] { abort_all(run); }); });
    decode_thread.join();
    filter_thread.join();
    encode_thread.join();
    {
        std::lock_guard<std::mutex> lock(queues_mutex_);
        // Abandoned (a second Ctrl-C): the queues were aborted on purpose; finish what was written.
        if (abandoned_) run.failure.clear();
    }
    run.failure.rethrow();
    finish_after_device_failure(run);
    // Finishing (encoder flush, trailer) is encode work and belongs in its busy time.
    const Clock::time_point t = Clock::now();
    sink_.finish();
    progress_.encode.busy_ns += ns_since(t);
    return summarize(run);
}

void Pipeline::abort_all(Run& run) {
    source_.stop();
    run.decoded.abort();
    run.filtered.abort();
}

void Pipeline::decode_loop(Run& run) {
    StageClock& clock = progress_.decode;
    std::optional<TimeCut> cut;
    if (options_.window.limits()) cut.emplace(options_.window, source_.video(), source_.passthrough());
    for (;;) {
        if (options_.max_frames > 0 && run.frames_in >= options_.max_frames) break;
        const Clock::time_point t = Clock::now();
        std::optional<PipelineItem> item = source_.read();
        const int64_t took = ns_since(t);
        clock.busy_ns += took;
        if (!item) break;
        if (cut) {
            const TimeCut::Verdict v = cut->admit(*item);
            if (v == TimeCut::Verdict::End) break;
            if (v == TimeCut::Verdict::Drop) continue;
        }
        const bool video = std::holds_alternative<VideoFrame>(*item);
        if (RecordingWindow* w = options_.recording_window.get()) {
            const RecordingWindow::Verdict v = video ? w->admit(std::get<VideoFrame>(*item).read_at)
                                                     : w->kept_frames() ? RecordingWindow::Verdict::Keep : RecordingWindow::Verdict::Drop;
            if (v == RecordingWindow::Verdict::End) break;
            if (v == RecordingWindow::Verdict::Drop) continue;
        }
        if (video) std::get<VideoFrame>(*item).decoded_at = t + std::chrono::nanoseconds(took);
        if (video) clock.per_item.add(took / 1e6);
        if (video) progress_.frames_in = ++run.frames_in;
        // A live input cannot wait: when the filter stage is behind, the frame goes
        // (not before the first frame is out: starting the encoder is no overload).
        if (video && options_.drop_when_behind && progress_.frames_out > 0) {
            const auto pushed = run.decoded.try_push(*item);
            if (pushed == BoundedQueue<PipelineItem>::TryPush::Ended) return;
            if (pushed == BoundedQueue<PipelineItem>::TryPush::Full) ++progress_.frames_dropped;
            continue;
        }
        if (!run.decoded.push(std::move(*item))) return;
    }
    run.decoded.close();
}

// Frames may be in flight on the GPU for a while; `held` keeps every item in input order until
// its frame is back, so passthrough packets never overtake the video they belong with.
void Pipeline::filter_loop(Run& run) {
    StageClock& clock = progress_.filter;
    std::deque<PipelineItem> held;
    // Passes on every item at the head of `held` that is finished; with wait, waits for all of
    // them (used when no input is waiting: keeps latency low on live feeds). False when ended.
    auto release = [&](bool wait) {
        while (!held.empty()) {
            if (auto* v = std::get_if<VideoFrame>(&held.front()); v && !v->frame) {
                const Clock::time_point t = Clock::now();
                v->frame = filter_.take(wait);
                clock.busy_ns += ns_since(t);
                if (!v->frame) return true;
                v->filtered_at = Clock::now();
                ++clock.items;
            }
            if (!run.filtered.push(std::move(held.front()))) return false;
            held.pop_front();
        }
        return true;
    };
    try {
        while (std::optional<PipelineItem> item = run.decoded.pop()) {
            if (auto* v = std::get_if<VideoFrame>(&*item)) {
                if (input_tap_) input_tap_->offer(v->frame.get(), v->read_at);
                const Clock::time_point t = Clock::now();
                v->filtering_at = t;
                try {
                    filter_.submit(std::move(v->frame));
                } catch (const Error& e) {
                    // A frame that cannot start (out of GPU memory) must not cost the frames
                    // before it: pass on what is in flight, then fail.
                    if (e.category() == ErrorCategory::Device) {
                        try {
                            release(true);
                        } catch (const Error&) {
                        }
                    }
                    throw;
                }
                const int64_t took = ns_since(t);
                clock.busy_ns += took;
                clock.per_item.add(took / 1e6);
                v->frame = nullptr;
            }
            held.push_back(std::move(*item));
            if (!release(run.decoded.size() == 0)) return;
        }
        if (!release(true)) return;
        run.filtered.close();
    } catch (const Error& e) {
        if (e.category() != ErrorCategory::Device) throw;
        run.device_failure = std::current_exception();
        source_.stop();
        run.decoded.abort();
        run.filtered.close();  // the encoder drains what is already filtered, then ends
    }
}

void Pipeline::encode_loop(Run& run) {
    StageClock& clock = progress_.encode;
    while (std::optional<PipelineItem> item = run.filtered.pop()) {
        const Clock::time_point t = Clock::now();
        const auto* v = std::get_if<VideoFrame>(&*item);
        if (v) {
            if (output_tap_) output_tap_->offer(v->frame.get(), v->read_at);
            sink_.write_frame(v->frame.get(), v->read_at);
            const Clock::time_point done = Clock::now();
            auto part = [](LatencyLog& log, Clock::time_point from, Clock::time_point to) {
                if (from != Clock::time_point{} && to != Clock::time_point{}) log.add(from, to);
            };
            PipelineProgress::LatencyParts& parts = progress_.latency_parts;
            part(parts.decode, v->read_at, v->decoded_at);
            part(parts.queue, v->decoded_at, v->filtering_at);
            part(parts.filter, v->filtering_at, v->filtered_at);
            part(parts.write, v->filtered_at, done);
            const int64_t n = ++clock.items;
            if (n == run.warmup) run.warm_at = done;
            run.last_at = done;
            progress_.frames_out = n;
            if (v->frame->pts != AV_NOPTS_VALUE) progress_.position_s = v->frame->pts * av_q2d(run.time_base);
        } else {
            sink_.write_packet(std::get<PassthroughPacket>(*item));
            ++run.packets;
        }
        const int64_t took = ns_since(t);
        clock.busy_ns += took;
        if (v) clock.per_item.add(took / 1e6);
    }
}

void Pipeline::finish_after_device_failure(Run& run) {
    if (!run.device_failure) return;
    const int64_t written = progress_.encode.items;
    if (written == 0) std::rethrow_exception(run.device_failure);  // nothing to keep: removed
    sink_.finish();
    try {
        std::rethrow_exception(run.device_failure);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Device, std::string(e.what()) + "; the output was finalised with the " +
                                               std::to_string(written) + " frames filtered before it");
    }
}

RunStats Pipeline::summarize(const Run& run) {
    StageClock& decode_clock = progress_.decode;
    StageClock& filter_clock = progress_.filter;
    StageClock& encode_clock = progress_.encode;
    RunStats s;
    s.wall_s = std::chrono::duration<double>(Clock::now() - run.start).count();
    s.frames_in = run.frames_in;
    s.frames_out = encode_clock.items;
    s.frames_dropped = progress_.frames_dropped;
    s.packets_passed = run.packets;
    s.average_fps = s.wall_s > 0 ? s.frames_out / s.wall_s : 0;
    if (s.frames_out > run.warmup && run.last_at > run.warm_at) {
        s.warmup_frames = run.warmup;
        s.sustained_fps = (s.frames_out - run.warmup) / std::chrono::duration<double>(run.last_at - run.warm_at).count();
    } else {
        s.sustained_fps = s.average_fps;
    }
    double worst = -1;
    std::vector<StageSummary> gpu_steps = filter_.gpu_stages(s.wall_s);
    for (StageClock* c : {&decode_clock, &filter_clock, &encode_clock}) {
        StageSummary st;
        st.name = c->name;
        st.busy_s = c->busy_ns / 1e9;
        st.busy_share = s.wall_s > 0 ? st.busy_s / s.wall_s : 0;
        st.ms_per_frame = s.frames_out > 0 ? 1000 * st.busy_s / s.frames_out : 0;
        st.p99_ms = c->per_item.percentile(99);
        // On the GPU the filter thread mostly waits for the GPU: its steps name the bottleneck.
        if (st.busy_share > worst && !(c == &filter_clock && !gpu_steps.empty())) worst = st.busy_share, s.bottleneck = st.name;
        s.stages.push_back(st);
        if (c == &filter_clock)
            for (const StageSummary& g : gpu_steps) {
                if (g.busy_share > worst) worst = g.busy_share, s.bottleneck = "GPU " + g.name;
                s.stages.push_back(g);
            }
    }
    if (filter_.device() == Device::Cuda) {
        s.device = "cuda";
        s.gpu_streams = filter_.gpu_streams();
        s.gpu_ms_per_frame = filter_.gpu_ms_per_frame();
        s.gpu_kernels = filter_.kernel_rows();
        s.gpu_frames_per_launch = filter_.frames_per_launch();
    }
    s.hw_decode = source_.hw_decode();
    s.nvdec_decoder = source_.nvdec_decoder();
    if (s.frames_out > 0)
        s.host_copies_per_frame = static_cast<double>(source_.host_copies() + filter_.staged_uploads()) / s.frames_out;
    s.latency_p50_ms = sink_.latency().percentile(50);
    s.latency_p99_ms = sink_.latency().percentile(99);
    s.live = source_.live();
    if (s.live && s.bottleneck == "decode") s.bottleneck = "input (a live source delivers at its own pace)";
    s.reconnects = source_.status().reconnects;
    s.input_gap_s = source_.status().gap_s;
    s.damaged_at_cuts = source_.status().damaged_at_cuts;
    s.filter_threads = filter_.threads();
    return s;
}

}  // namespace vf
