#include "pipeline/filter_stage.hpp"

#include "decode/hw_decode.hpp"
#include "pipeline/host_memory.hpp"

#ifdef VF_HAVE_CUDA
#include "pipeline/gpu_frame_filter.hpp"
#else
namespace vf {
class GpuFrameFilter {};  // never made without CUDA; complete so unique_ptr can destroy it
}  // namespace vf
#endif

namespace vf {

FilterStage::FilterStage(std::vector<FilterPlan> chain, const FilterStageOptions& o)
    : device_(o.device), backend_(o.device == Device::Cpu ? o.threads : 1) {
    for (auto& p : chain)
        if (!p.is_identity()) chain_.push_back(std::move(p));
    if (device_ == Device::Cuda) {
#ifdef VF_HAVE_CUDA
        GpuKernel k = GpuKernel::Auto;
        if (!parse_gpu_kernel(o.gpu_kernel, &k))
            fail(ErrorCategory::Usage, "--kernel '" + o.gpu_kernel + "': expected auto, naive, constant, tiled, separable or fft");
        gpu_ = std::make_unique<GpuFrameFilter>(chain_, k, o.gpu_streams);
#else
        fail(ErrorCategory::Device, "this vfilter was built without CUDA (no nvcc at configure time); use --device cpu");
#endif
    }
}

FilterStage::~FilterStage() = default;

int FilterStage::gpu_streams() const {
#ifdef VF_HAVE_CUDA
    if (gpu_) return gpu_->capacity();
#endif
    return 0;
}

FramePool& FilterStage::pool_for(const AVFrame* f) {
    const AVPixelFormat layout = frame_layout_format(f);
    if (!pool_ || pool_->width() != f->width || pool_->height() != f->height || pool_->format() != layout)
        // GPU results land in page-locked frames: the download is a DMA, the encoder reads them.
        pool_ = std::make_unique<FramePool>(f->width, f->height, layout, gpu_ ? pinned_buffer_alloc : nullptr);
    return *pool_;
}

void FilterStage::submit(AvFramePtr in) {
#ifdef VF_HAVE_CUDA
    // Device frames (NVDEC) always go through the GPU stage: at least to come back to the host.
    if (gpu_ && (!chain_.empty() || in->format == AV_PIX_FMT_CUDA)) {
        if (gpu_->in_flight() == gpu_->capacity()) ready_.push_back(gpu_->take(true));
        FramePool& pool = pool_for(in.get());
        gpu_->submit(std::move(in), pool);
        return;
    }
    if (gpu_)  // keep the order: what is on the GPU leaves first
        while (AvFramePtr f = gpu_->take(true)) ready_.push_back(std::move(f));
#endif
    if (chain_.empty()) {
        ready_.push_back(std::move(in));
        return;
    }
    FramePool& pool = pool_for(in.get());
    for (const FilterPlan& plan : chain_) {
        AvFramePtr out = pool.get();
        VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
        const std::vector<PlaneView> src = channel_views(in.get());
        const std::vector<PlaneView> dst = channel_views(out.get());
        for (size_t c = 0; c < src.size(); ++c) backend_.apply(plan.ops[c], src[c], dst[c]);
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
#ifdef VF_HAVE_CUDA
    if (gpu_) return gpu_->take(wait);
#endif
    (void)wait;
    return nullptr;
}

AvFramePtr FilterStage::process(AvFramePtr in) {
    submit(std::move(in));
    AvFramePtr out;
    while (AvFramePtr f = take(true)) out = std::move(f);  // the last one is this frame
    return out;
}

std::vector<StageSummary> FilterStage::gpu_stages(double wall_s) const {
    std::vector<StageSummary> out;
#ifdef VF_HAVE_CUDA
    if (!gpu_ || gpu_->times().frames == 0) return out;
    const GpuStageTimes& t = gpu_->times();
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
#else
    (void)wall_s;
#endif
    return out;
}

double FilterStage::gpu_ms_per_frame() const {
#ifdef VF_HAVE_CUDA
    if (gpu_) return gpu_->times().total.mean();
#endif
    return 0;
}

int64_t FilterStage::staged_uploads() const {
#ifdef VF_HAVE_CUDA
    if (gpu_) return gpu_->times().staged_uploads;
#endif
    return 0;
}

}  // namespace vf
