#include "pipeline/filter_stage.hpp"

#include "decode/hw_decode.hpp"
#include "media/host_memory.hpp"


#ifdef VF_HAVE_CUDA
#include "pipeline/gpu_frame_filter.hpp"
#endif

namespace vf {

namespace {
std::vector<FilterPlan> without_identities(std::vector<FilterPlan> chain) {
    std::vector<FilterPlan> kept;
    for (auto& p : chain)
        if (!p.is_identity()) kept.push_back(std::move(p));
    return kept;
}
}  // namespace

FilterStage::FilterStage(std::vector<FilterPlan> chain, const FilterStageOptions& o)
    : options_(o), chain_(without_identities(std::move(chain))), device_(o.device),
      backend_(o.device == Device::Cpu ? o.threads : 1) {
    make_engine();
}

void FilterStage::make_engine() {
    engine_.reset();
    if (device_ == Device::Cuda) {
#ifdef VF_HAVE_CUDA
        if (!options_.gpu) fail(ErrorCategory::Internal, "the GPU filter stage needs a GPU of a runtime");
        engine_ = std::make_unique<GpuFrameFilter>(chain_, options_.gpu_kernel, options_.gpu_streams, options_.gpu,
                                                   options_.gpu_results_over_input);
#else
        fail(ErrorCategory::Device, "this vfilter was built without CUDA (no nvcc at configure time); use --device cpu");
#endif
    } else if (options_.engine_factory && !chain_.empty()) {
        engine_ = options_.engine_factory(chain_);
    }
}

void FilterStage::set_chain(std::vector<FilterPlan> chain) {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_chain_ = without_identities(std::move(chain));
    chain_pending_ = true;
}

void FilterStage::take_pending_chain() {
    std::vector<FilterPlan> next;
    {
        std::lock_guard<std::mutex> lock(pending_mutex_);
        next = std::move(pending_chain_);
        chain_pending_ = false;
    }
    // What is in flight finishes with the old chain and leaves first, in order.
    if (engine_)
        while (AvFramePtr f = engine_->take(true)) ready_.push_back(std::move(f));
    chain_ = std::move(next);
    // The engine keeps its slots, CUDA streams and device images; only the chain changes.
    if (engine_)
        engine_->set_chain(chain_);
    else
        make_engine();
}

FilterStage::~FilterStage() = default;

int FilterStage::gpu_streams() const { return device_ == Device::Cuda && engine_ ? engine_->capacity() : 0; }

FramePool& FilterStage::pool_for(const AVFrame* f) {
    const AVPixelFormat layout = frame_layout_format(f);
    if (!pool_ || pool_->width() != f->width || pool_->height() != f->height || pool_->format() != layout)
        // GPU results land in page-locked frames: the download is a DMA, the encoder reads them.
        // A consumer on the GPU gets device frames instead (allocated on the engine's device).
        pool_ = std::make_unique<FramePool>(f->width, f->height, layout,
                                            device_ != Device::Cuda            ? BufferAllocator()
                                            : options_.gpu_output_on_device ? BufferAllocator(device_buffer_alloc)
                                                                            : options_.gpu->page_locked()->allocator());
    return *pool_;
}

FilterMask FilterStage::filters_for(const AVFrame* f) {
    const int64_t n = frames_submitted_++;
    bool timed = false;
    for (const FilterPlan& p : chain_) timed |= p.enable != nullptr;
    if (!timed) return {};
    // FFmpeg's variables (libavfilter/avfilter.c, ff_inlink_evaluate_timeline_at_frame).
    FrameMoment m;
    m.n = static_cast<double>(n);
    if (f->pts != AV_NOPTS_VALUE && options_.time_base.num > 0) m.t = f->pts * av_q2d(options_.time_base) - options_.time_origin_s;
    if (f->pkt_pos >= 0) m.pos = static_cast<double>(f->pkt_pos);
    m.w = f->width;
    m.h = f->height;
    FilterMask applies(chain_.size());
    for (size_t i = 0; i < chain_.size(); ++i) applies[i] = chain_[i].applies_to(m);
    return applies;
}

void FilterStage::submit(AvFramePtr in) {
    if (chain_pending_) take_pending_chain();
    const FilterMask applies = filters_for(in.get());
    // Device frames (NVDEC) always go through the GPU stage: at least to come back to the host.
    if (engine_ && (!chain_.empty() || in->format == AV_PIX_FMT_CUDA || options_.gpu_output_on_device)) {
        if (engine_->in_flight() == engine_->capacity()) ready_.push_back(engine_->take(true));  // backpressure
        FramePool& pool = pool_for(in.get());
        engine_->submit(std::move(in), pool, applies);
        return;
    }
    if (engine_)  // keep the order: what is in flight leaves first
        while (AvFramePtr f = engine_->take(true)) ready_.push_back(std::move(f));
    if (chain_.empty()) {
        ready_.push_back(std::move(in));
        return;
    }
    FramePool& pool = pool_for(in.get());
    for (size_t i = 0; i < chain_.size(); ++i) {
        if (!applies.empty() && !applies[i]) continue;  // enable= leaves the frame as it is here
        const FilterPlan& plan = chain_[i];
        AvFramePtr out = pool.get();
        VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
        const std::vector<PlaneView> src = channel_views(in.get());
        const std::vector<PlaneView> dst = channel_views(out.get());
        for (size_t c = 0; c < src.size(); ++c) backend_.apply(plan.ops[c], src[c], dst[c]);
        copy_alpha_plane(in.get(), out.get());  // alpha is no channel: it passes through
        in = std::move(out);  // the previous frame returns to its pool (or its decoder)
    }
    ready_.push_back(std::move(in));
}

AvFramePtr FilterStage::take(bool wait) {
    if (!ready_.empty()) {
        AvFramePtr f = std::move(ready_.front());
        ready_.pop_front();
        return f;
    }
    return engine_ ? engine_->take(wait) : nullptr;
}

AvFramePtr FilterStage::process(AvFramePtr in) {
    submit(std::move(in));
    AvFramePtr out;
    while (AvFramePtr f = take(true)) out = std::move(f);  // the last one is this frame
    return out;
}

}  // namespace vf
