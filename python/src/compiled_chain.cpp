#include "compiled_chain.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "kernels/cpu_backend.hpp"
#include "plane_chain.hpp"

namespace vf {
namespace {

// Plane sizes whose plans a chain keeps: a loop over one video's frames needs one.
constexpr size_t kSizesKept = 8;
// Sets of enable= filters applying whose GPU plans a plane size keeps: two per timed filter
// cover a loop over a video; more are made again when needed.
constexpr size_t kApplyingSetsKept = 16;

// The GPU's plans of `cpu`'s filters that `applies` marks: those that copy left out, one copy
// when nothing is left.
std::shared_ptr<const std::vector<FilterPlan>> gpu_plans_of(const std::vector<FilterPlan>& cpu, const std::vector<bool>& applies) {
    auto gpu = std::make_shared<std::vector<FilterPlan>>();
    for (size_t i = 0; i < cpu.size(); ++i)
        if ((applies.empty() || applies[i]) && cpu[i].ops[0].kind != OpKind::Copy) gpu->push_back(cpu[i]);
    if (gpu->empty()) gpu->push_back(FilterPlan{});  // a copy
    return gpu;
}

}  // namespace

CompiledPlaneChain::CompiledPlaneChain(const std::string& text, const std::string& border, bool ffmpeg_defaults)
    : spec_(compile_chain(text)), ffmpeg_defaults_(ffmpeg_defaults) {
    if (border == kFfmpegBorderName)
        spec_ = with_ffmpeg_border(*spec_);
    else
        forced_border_ = border_named(border, &border_);
    for (const CompiledFilter& f : spec_->filters())
        if (f.enable && timed_filter_.empty()) timed_filter_ = f.def->name;
}

CompiledPlaneChain::~CompiledPlaneChain() = default;

std::shared_ptr<const PlaneSizePlans> CompiledPlaneChain::plans(int width, int height) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < sizes_.size(); ++i)
        if (sizes_[i]->width == width && sizes_[i]->height == height) {
            if (i > 0) std::rotate(sizes_.begin(), sizes_.begin() + static_cast<std::ptrdiff_t>(i), sizes_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return sizes_.front();
        }
    auto made = std::make_shared<PlaneSizePlans>();
    made->width = width;
    made->height = height;
    made->cpu = plane_chain(*spec_, width, height, forced_border_, border_, ffmpeg_defaults_);
    made->gpu = gpu_plans_of(made->cpu, {});
    sizes_.insert(sizes_.begin(), made);
    if (sizes_.size() > kSizesKept) sizes_.pop_back();
    return made;
}

std::vector<bool> CompiledPlaneChain::filters_applying(const PlaneSizePlans& plans, const CallMoment& when, int width,
                                                       int height) const {
    if (timed_filter_.empty()) return {};
    if (!when.t && !when.n)
        throw Error(ErrorCategory::Usage, "enable=: " + timed_filter_ +
                                              " applies by time or frame; pass t= (seconds) or n= (frame number), and pos= for pos");
    // FFmpeg's variables (libavfilter/avfilter.c): what is not known is NAN, n counts from 0.
    FrameMoment m;
    m.t = when.t.value_or(NAN);
    m.n = static_cast<double>(when.n.value_or(0));
    m.pos = when.pos.value_or(NAN);
    m.w = width;
    m.h = height;
    std::vector<bool> applies(plans.cpu.size());
    for (size_t i = 0; i < plans.cpu.size(); ++i) applies[i] = plans.cpu[i].applies_to(m);
    return applies;
}

std::shared_ptr<const std::vector<FilterPlan>> CompiledPlaneChain::gpu_plans(const PlaneSizePlans& plans,
                                                                             const std::vector<bool>& applies) {
    if (applies.empty()) return plans.gpu;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& kept = plans.gpu_applying;
    auto found = kept.find(applies);
    if (found != kept.end()) return found->second;
    if (kept.size() >= kApplyingSetsKept) kept.clear();
    return kept.emplace(applies, gpu_plans_of(plans.cpu, applies)).first->second;
}

SharedCpuBackend& shared_cpu_backend(int threads) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<SharedCpuBackend>> backends;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<SharedCpuBackend>& b = backends[threads];
    if (!b) {
        b = std::make_unique<SharedCpuBackend>();
        b->backend = std::make_unique<CpuBackend>(threads);
    }
    return *b;
}

}  // namespace vf
