#include "pipeline/gpu_frame_filter.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "decode/hw_decode.hpp"
#include "kernels/cuda/device_context.hpp"
#include "media/host_memory.hpp"
#include "media/rgb_planes.hpp"
#include "pipeline/gpu_frame_slot.hpp"

namespace vf {

// What every stream on one device shares when batching: the batch window and the CUDA streams
// (with their scratch) its launches run on. Made by the device's GpuDevice when the first engine
// asks, gone with the last.
struct SharedGpuStage {
    struct Lane {
        cuda::Stream stream;
        cuda::Workspace workspace{stream.get()};
    };
    int device = 0;
    std::vector<std::unique_ptr<Lane>> lanes;  // launches of different groups may overlap
    size_t next = 0;                           // the window's thread alone uses it
    std::unique_ptr<BatchWindow> window;
    // launch()'s lists, kept so a launch allocates nothing once they have grown (window's thread).
    std::vector<GpuFrameFilter::Slot*> slots;
    std::vector<PlaneView> src, dst;
    std::shared_ptr<GpuBatchCounters> counters;

    void launch(const std::vector<BatchJob*>& jobs);
};

struct GpuFrameFilter::Impl {
    std::shared_ptr<GpuDevice> gpu;
    int device = 0;
    void make_current() const {
        int now = -1;
        if (cudaGetDevice(&now) != cudaSuccess || now != device) VF_CUDA_CHECK(cudaSetDevice(device));
    }
    std::shared_ptr<cuda::DeviceContext> ctx;
    std::shared_ptr<const std::vector<FilterPlan>> chain;
    KernelChoice kernel;
    bool results_over_input = false;
    // The prepared chains of `chain` for the plane layouts of the last frames submitted, the most
    // recent first: frames whose layouts alternate (NVDEC surfaces, say) find theirs without
    // preparing it again. A few, each a chain's tables: kKeptLayouts.
    static constexpr size_t kKeptLayouts = 4;
    struct PreparedFor {
        std::vector<cuda::StepShapes> shapes;
        std::shared_ptr<const cuda::PreparedChain> chain;
    };
    std::vector<PreparedFor> prepared;

    // The chain prepared for these shapes: kept, found in the device's store, or prepared now.
    std::shared_ptr<const cuda::PreparedChain> prepared_for(std::vector<cuda::StepShapes> shapes) {
        for (auto it = prepared.begin(); it != prepared.end(); ++it)
            if (it->shapes == shapes) {
                std::rotate(prepared.begin(), it, it + 1);  // most recent first
                return prepared.front().chain;
            }
        auto made = cuda::PreparedChain::acquire(ctx, *chain, kernel, shapes);
        prepared.insert(prepared.begin(), PreparedFor{std::move(shapes), made});
        if (prepared.size() > kKeptLayouts) prepared.pop_back();
        return made;
    }
    std::vector<const char*> ran;  // the row that ran, per filter and channel, for the last frame
    std::shared_ptr<const std::vector<FilterPlan>> ran_plans;  // that frame's filters
    bool ran_rgb = false;                                      // and whether its channels were G, B, R
    std::vector<std::unique_ptr<Slot>> slots;
    int64_t submitted = 0, taken = 0;
    GpuStageTimes times;
    std::shared_ptr<SharedGpuStage> shared;  // the device's batch window, while batching a non-empty chain

    // Joins the device's batch window while there is something to batch; leaves it otherwise, so
    // that an engine with nothing to filter never holds the other streams' launches back.
    void update_window() {
        const bool want = gpu->batch_wait_us() >= 0 && !chain->empty();
        if (want && !shared) {
            shared = gpu->batch_stage();
            shared->window->join(this);
        } else if (!want && shared) {
            shared->window->leave(this);
            shared.reset();
        }
    }
};

std::shared_ptr<SharedGpuStage> make_shared_gpu_stage(int device, int wait_us, std::shared_ptr<GpuBatchCounters> counters) {
    cuda::DeviceGuard guard(device);  // the lanes' streams belong to this device
    auto stage = std::make_shared<SharedGpuStage>();
    stage->device = device;
    stage->counters = std::move(counters);
    for (int i = 0; i < 4; ++i) stage->lanes.push_back(std::make_unique<SharedGpuStage::Lane>());
    BatchWindowOptions o;
    o.max_wait = std::chrono::microseconds(wait_us);
    SharedGpuStage* raw = stage.get();
    // Frames share a launch when they run the same prepared chain: the same operations on planes
    // of the same layout, on this device.
    stage->window = std::make_unique<BatchWindow>(
        o,
        [](const BatchJob& a, const BatchJob& b) {
            const auto& x = *static_cast<const GpuJob&>(a).slot;
            const auto& y = *static_cast<const GpuJob&>(b).slot;
            return x.prepared == y.prepared && x.applies == y.applies;
        },
        [raw](const std::vector<BatchJob*>& jobs) { raw->launch(jobs); });
    return stage;
}

// On the window's thread: one launch per filter and channel for every frame of the group, on
// one of the shared streams once each frame's upload is done; then each frame's download on its
// own stream.
void SharedGpuStage::launch(const std::vector<BatchJob*>& jobs) {
    int now = -1;
    if (cudaGetDevice(&now) != cudaSuccess || now != device) VF_CUDA_CHECK(cudaSetDevice(device));
    Lane& lane = *lanes[next++ % lanes.size()];
    cudaStream_t st = lane.stream.get();
    slots.clear();
    for (BatchJob* j : jobs) slots.push_back(static_cast<GpuJob*>(j)->slot);
    const cuda::PreparedChain& prepared = *slots.front()->prepared;
    for (GpuFrameFilter::Slot* s : slots) VF_CUDA_CHECK(cudaStreamWaitEvent(st, s->uploaded.get(), 0));
    const int n = static_cast<int>(slots.size());
    src.resize(slots.size());
    dst.resize(slots.size());
    const std::vector<FilterStep>& steps = slots.front()->steps;
    for (size_t f = 0; f < steps.size(); ++f)
        for (size_t c = 0; c < steps[f].src.size(); ++c) {
            if (!slots.front()->applies_filter(f)) {  // the same for the whole group
                for (GpuFrameFilter::Slot* s : slots) GpuFrameFilter::Slot::copy_channel(s->steps[f].src[c], s->steps[f].dst[c], st);
                continue;
            }
            for (size_t i = 0; i < slots.size(); ++i) src[i] = slots[i]->steps[f].src[c], dst[i] = slots[i]->steps[f].dst[c];
            const cuda::PreparedOp& op = prepared.op(f, c);
            op.launch_batch(src.data(), dst.data(), n, st, lane.workspace);
            for (GpuFrameFilter::Slot* s : slots) s->ran[f * kMaxChannels + c] = op.row();
        }
    for (GpuFrameFilter::Slot* s : slots) {
        s->launch_frames = n;
        s->filtered.record(st);
        VF_CUDA_CHECK(cudaStreamWaitEvent(s->stream.get(), s->filtered.get(), 0));
        s->download();
    }
    counters->launches += 1;
    counters->frames += n;
}

GpuFrameFilter::GpuFrameFilter(std::vector<FilterPlan> chain, KernelChoice kernel, int streams, std::shared_ptr<GpuDevice> device,
                               bool results_over_input)
    : impl_(std::make_unique<Impl>()) {
    if (streams < 1 || streams > 16) fail(ErrorCategory::Usage, "--gpu-streams must be in 1..16");
    impl_->gpu = std::move(device);
    impl_->device = impl_->gpu->index();
    impl_->make_current();  // the slots' streams and events belong to this device
    impl_->ctx = impl_->gpu->context();
    impl_->chain = std::make_shared<const std::vector<FilterPlan>>(std::move(chain));
    impl_->kernel = kernel;
    impl_->results_over_input = results_over_input;
    for (int i = 0; i < streams; ++i) impl_->slots.push_back(std::make_unique<Slot>());
    impl_->update_window();
}

GpuFrameFilter::~GpuFrameFilter() {
    // Frames still in the window never launch; a launch under way finishes first.
    if (impl_->shared) impl_->shared->window->leave(impl_.get());
    // Frames in flight still reference device and pinned memory: let the GPU finish with them.
    cudaSetDevice(impl_->device);
    for (auto& s : impl_->slots) cudaStreamSynchronize(s->stream.get());
}

void GpuFrameFilter::set_chain(std::vector<FilterPlan> chain) {
    Impl& m = *impl_;
    if (in_flight() != 0) fail(ErrorCategory::Internal, "GPU stage: set_chain with frames in flight");
    m.chain = std::make_shared<const std::vector<FilterPlan>>(std::move(chain));
    m.prepared.clear();  // the next frame acquires the new chain's
    m.update_window();
}

int GpuFrameFilter::capacity() const { return static_cast<int>(impl_->slots.size()); }
int GpuFrameFilter::in_flight() const { return static_cast<int>(impl_->submitted - impl_->taken); }
const GpuStageTimes& GpuFrameFilter::times() const { return impl_->times; }

void GpuFrameFilter::submit(AvFramePtr in, FramePool& pool, const FilterMask& applies) {
    Impl& m = *impl_;
    m.make_current();
    if (in_flight() >= capacity()) fail(ErrorCategory::Internal, "GPU stage: submit with every stream busy");
    Slot& s = *m.slots[static_cast<size_t>(m.submitted % capacity())];
    const bool on_device = in->format == AV_PIX_FMT_CUDA || in_device_memory(in->data[0]);
    const AVPixelFormat layout_format = frame_layout_format(in.get());
    if (!s.layout.matches(layout_format, in->width, in->height)) {
        GpuFrameLayout l;
        l.set(layout_format, in->width, in->height);
        s.allocate(l);
    }
    const GpuFrameLayout& l = s.layout;
    const std::vector<FilterPlan>& chain = *m.chain;

    // The planes each filter reads and writes. Every image the kernels need exists before anything
    // is queued or the frame can wait in the window: an allocation that fails (out of memory)
    // fails this stream's submit, never another stream's launch.
    std::vector<PlaneView> current;
    int next = 0;  // the device image the next filter writes
    if (on_device) {
        current = channel_views(l.format, l.width, l.height, in->data, in->linesize);
    } else {
        current = s.device_views(0);
        next = 1;
    }
    s.steps.clear();
    std::vector<cuda::StepShapes> shapes;
    for (size_t f = 0; f < chain.size(); ++f) {
        FilterStep step{current, s.device_views(next)};
        cuda::StepShapes shape;
        for (size_t c = 0; c < step.src.size(); ++c) {
            shape.src.push_back(cuda::PlaneShape::of(step.src[c]));
            shape.dst.push_back(cuda::PlaneShape::of(step.dst[c]));
        }
        shapes.push_back(std::move(shape));
        current = step.dst;
        s.steps.push_back(std::move(step));
        next = 1 - next;
    }
    // The chain compiled for these planes: made (or found in the device's store) when the chain or
    // the frames' layout changes, not per frame. A forced kernel that cannot take a plane fails here.
    std::shared_ptr<const cuda::PreparedChain> prepared = chain.empty() ? nullptr : m.prepared_for(std::move(shapes));

    cudaStream_t st = s.stream.get();
    s.start.record(st);
    if (on_device) {
        // NVDEC maps the frame on its decoder's stream; order our stream after it (a device
        // frame from elsewhere was finished before it was handed over: the legacy default stream).
        VF_CUDA_CHECK(cudaEventRecord(s.hw_ready.get(), static_cast<cudaStream_t>(nvdec_stream_of(in.get()))));
        VF_CUDA_CHECK(cudaStreamWaitEvent(st, s.hw_ready.get(), 0));
        s.staged = false;
    } else {
        s.staged = !is_pinned(in->data[0]);
        for (int p = 0; p < l.planes; ++p)
            VF_CUDA_CHECK(cudaMemcpy2DAsync(s.plane(0, p), s.linesize[p], in->data[p], in->linesize[p],
                                            l.row_bytes[p], l.rows[p], cudaMemcpyHostToDevice, st));
    }
    s.uploaded.record(st);
    s.ran.assign(chain.size() * kMaxChannels, nullptr);
    s.applies = applies;
    s.prepared = std::move(prepared);
    s.plans = m.chain;
    // Over the input's own planes: the download follows the upload on the slot's stream.
    AvFramePtr out = m.results_over_input && !on_device ? AvFramePtr(av_frame_clone(in.get())) : pool.get();
    if (!out) fail(ErrorCategory::Internal, "out of memory for a frame");
    VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
    // The result: the input frame itself for an empty chain on device frames.
    if (chain.empty() && on_device) {
        for (int p = 0; p < l.planes; ++p) s.result[p] = in->data[p], s.result_linesize[p] = in->linesize[p];
    } else {
        const int result = 1 - next;
        for (int p = 0; p < l.planes; ++p) s.result[p] = s.plane(result, p), s.result_linesize[p] = s.linesize[p];
        // Alpha is no channel, so no kernel writes it: it is downloaded from where it was read.
        if (const int alpha = alpha_plane(l.format); alpha >= 0) {
            s.result[alpha] = on_device ? in->data[alpha] : s.plane(0, alpha);
            s.result_linesize[alpha] = on_device ? in->linesize[alpha] : s.linesize[alpha];
        }
    }
    s.in = std::move(in);
    s.out = std::move(out);
    ++m.submitted;
    if (m.shared) {
        s.job.producer = &m;
        s.job.group = std::hash<const void*>{}(s.prepared.get()) ^ std::hash<FilterMask>{}(s.applies);
        s.job.engine = &m;
        s.job.slot = &s;
        s.waiting = true;
        m.shared->window->submit(s.job);
        return;
    }
    s.filter();
    s.filtered.record(st);
    s.download();
}

AvFramePtr GpuFrameFilter::take(bool wait) {
    Impl& m = *impl_;
    if (in_flight() == 0) return nullptr;
    m.make_current();
    Slot& s = *m.slots[static_cast<size_t>(m.taken % capacity())];
    if (s.waiting) {
        if (!m.shared->window->launched(s.job, wait)) return nullptr;
        s.waiting = false;
    }
    if (!wait) {
        const cudaError_t q = cudaEventQuery(s.done.get());
        if (q == cudaErrorNotReady) return nullptr;
        VF_CUDA_CHECK(q);
    }
    const double upload = s.uploaded.since(s.start), kernels = s.filtered.since(s.uploaded), download = s.done.since(s.filtered);
    m.times.upload.add(upload);
    m.times.kernels.add(kernels);
    m.times.download.add(download);
    m.times.total.add(upload + kernels + download);
    ++m.times.frames;
    m.times.launch_frames += s.launch_frames;
    if (s.staged) ++m.times.staged_uploads;
    m.ran = s.ran;
    m.ran_plans = s.plans;
    m.ran_rgb = is_rgb_format(s.layout.format);
    s.in.reset();  // back to the decoder's pool (or NVDEC's surfaces)
    s.prepared.reset();  // a chain replaced meanwhile goes with its last frame
    s.plans.reset();
    ++m.taken;
    return std::move(s.out);
}

double GpuFrameFilter::frames_per_launch() const {
    const GpuStageTimes& t = impl_->times;
    return t.frames > 0 ? static_cast<double>(t.launch_frames) / t.frames : 0;
}

std::vector<std::string> GpuFrameFilter::kernel_rows() const {
    static const char* const kYuv[] = {"Y", "U", "V"}, *const kRgb[] = {"G", "B", "R"};
    const char* const* kChannel = impl_->ran_rgb ? kRgb : kYuv;
    std::vector<std::string> rows;
    if (!impl_->ran_plans) return rows;
    const std::vector<FilterPlan>& plans = *impl_->ran_plans;
    for (size_t f = 0; f < plans.size() && (f + 1) * kMaxChannels <= impl_->ran.size(); ++f)
        for (int c = 0; c < kMaxChannels; ++c)
            if (const char* name = impl_->ran[f * kMaxChannels + c]) rows.push_back(plans[f].description + " " + kChannel[c] + ": " + name);
    return rows;
}

std::vector<StageSummary> GpuFrameFilter::steps(double wall_s) const {
    std::vector<StageSummary> out;
    const GpuStageTimes& t = impl_->times;
    if (t.frames == 0) return out;
    const std::pair<const char*, const DurationHistogram*> steps[] = {
        {"upload", &t.upload}, {"kernels", &t.kernels}, {"download", &t.download}};
    for (const auto& [name, h] : steps) {
        StageSummary s;
        s.name = name;
        s.gpu = true;
        s.busy_s = h->sum_ms() / 1000;
        s.busy_share = wall_s > 0 ? s.busy_s / wall_s : 0;
        s.ms_per_frame = h->mean();
        s.p99_ms = h->percentile(99);
        out.push_back(s);
    }
    return out;
}

}  // namespace vf
