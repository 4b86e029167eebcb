#include "pipeline/filter_stage.hpp"

namespace vf {

FilterStage::FilterStage(std::vector<FilterPlan> chain, int threads) : backend_(threads) {
    for (auto& p : chain)
        if (!p.is_identity()) chain_.push_back(std::move(p));
}

AvFramePtr FilterStage::process(AvFramePtr in) {
    for (const FilterPlan& plan : chain_) {
        if (!pool_ || pool_->width() != in->width || pool_->height() != in->height || pool_->format() != in->format)
            pool_ = std::make_unique<FramePool>(in->width, in->height, static_cast<AVPixelFormat>(in->format));
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
