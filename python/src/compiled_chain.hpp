// vfilter.compile's object: a filter chain compiled once (config/chain_spec.hpp), with its plans
// for each plane size it has filtered kept, and the GPU chains prepared for them, so that a call
// on an image of a size seen before parses and plans nothing.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/chain_spec.hpp"
#include "gpu_apply.hpp"
#include "kernels/plan.hpp"

namespace vf {

class CpuBackend;

// The plans of one plane size: the CPU's, one a filter, and the GPU's (filters that copy left out;
// shared, so that the GPU chains prepared for them know them by address).
struct PlaneSizePlans {
    int width = 0, height = 0;
    std::vector<FilterPlan> cpu;
    std::shared_ptr<const std::vector<FilterPlan>> gpu;
};

class CompiledPlaneChain {
public:
    // Compiles `text` (once); `border` (mirror, replicate, zero; "": each filter's own) applies to
    // every filter. Throws Error(Usage) for a bad chain or border.
    CompiledPlaneChain(const std::string& text, const std::string& border, bool ffmpeg_defaults);
    ~CompiledPlaneChain();

    const std::string& text() const { return spec_->text(); }
    // The plans for planes of width x height, made on the first call for that size.
    std::shared_ptr<const PlaneSizePlans> plans(int width, int height);
    // The GPU chains prepared for this chain (kept while it lives).
    GpuApplyCache& gpu_cache() { return gpu_; }

private:
    std::shared_ptr<const ChainSpec> spec_;
    bool forced_border_ = false;
    Border border_ = Border::Mirror;
    bool ffmpeg_defaults_ = false;
    std::mutex mutex_;  // sizes_
    std::vector<std::shared_ptr<const PlaneSizePlans>> sizes_;  // most recent first
    GpuApplyCache gpu_;
};

// A CPU backend of `threads` threads (0: one per core), shared by every call and chain of the
// module, with the lock its users hold while they filter.
struct SharedCpuBackend {
    std::mutex mutex;
    std::unique_ptr<CpuBackend> backend;
};
SharedCpuBackend& shared_cpu_backend(int threads);

}  // namespace vf
