#include "pipeline/filter_stage.hpp"

#ifdef VF_HAVE_CUDA
#include "pipeline/gpu_frame_filter.hpp"
#else
namespace vf {
class GpuFrameFilter {};  // never made without CUDA; complete so unique_ptr can destroy it
}  // namespace vf
#endif

namespace vf {

FilterStage::FilterStage(std::vector<FilterPlan> chain, int threads, Device device, const std::string& gpu_kernel)
    : device_(device), backend_(device == Device::Cpu ? threads : 1) {
    for (auto& p : chain)
        if (!p.is_identity()) chain_.push_back(std::move(p));
    if (device == Device::Cuda) {
#ifdef VF_HAVE_CUDA
        GpuKernel k = GpuKernel::Auto;
        if (!parse_gpu_kernel(gpu_kernel, &k))
            fail(ErrorCategory::Usage, "--kernel '" + gpu_kernel + "': expected auto, naive, constant, tiled, separable or fft");
        gpu_ = std::make_unique<GpuFrameFilter>(chain_, k);
#else
        (void)gpu_kernel;
        fail(ErrorCategory::Device, "this vfilter was built without CUDA (no nvcc at configure time); use --device cpu");
#endif
    }
}

FilterStage::~FilterStage() = default;

AvFramePtr FilterStage::process(AvFramePtr in) {
    if (chain_.empty()) return in;
    if (!pool_ || pool_->width() != in->width || pool_->height() != in->height || pool_->format() != in->format)
        pool_ = std::make_unique<FramePool>(in->width, in->height, static_cast<AVPixelFormat>(in->format));
#ifdef VF_HAVE_CUDA
    if (gpu_) return gpu_->process(in.get(), *pool_);
#endif
    for (const FilterPlan& plan : chain_) {
        AvFramePtr out = pool_->get();
        VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
        const std::vector<PlaneView> src = channel_views(in.get());
        const std::vector<PlaneView> dst = channel_views(out.get());
        for (size_t c = 0; c < src.size(); ++c) backend_.apply(plan.ops[c], src[c], dst[c]);
        in = std::move(out);  // the previous frame returns to its pool (or its decoder)
    }
    return in;
}

}  // namespace vf
