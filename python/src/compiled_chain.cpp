#include "compiled_chain.hpp"

#include <algorithm>
#include <map>

#include "kernels/cpu_backend.hpp"
#include "plane_chain.hpp"

namespace vf {
namespace {

// Plane sizes whose plans a chain keeps: a loop over one video's frames needs one.
constexpr size_t kSizesKept = 8;

}  // namespace

CompiledPlaneChain::CompiledPlaneChain(const std::string& text, const std::string& border, bool ffmpeg_defaults)
    : spec_(compile_chain(text)), ffmpeg_defaults_(ffmpeg_defaults) {
    forced_border_ = border_named(border, &border_);
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
    auto gpu = std::make_shared<std::vector<FilterPlan>>();
    for (const FilterPlan& p : made->cpu)
        if (p.ops[0].kind != OpKind::Copy) gpu->push_back(p);
    if (gpu->empty()) gpu->push_back(FilterPlan{});  // a copy
    made->gpu = std::move(gpu);
    sizes_.insert(sizes_.begin(), made);
    if (sizes_.size() > kSizesKept) sizes_.pop_back();
    return made;
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
