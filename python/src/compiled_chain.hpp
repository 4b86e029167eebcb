// vfilter.compile's object: a filter chain compiled once (config/chain_spec.hpp), with its plans
// for each plane size it has filtered kept, and the GPU chains prepared for them, so that a call
// on an image of a size seen before parses and plans nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
    // enable=: the GPU's plans of the filters that apply, by which of cpu's apply (made once for
    // each such set, so that its prepared chain is found again); guarded by the chain's mutex.
    mutable std::map<std::vector<bool>, std::shared_ptr<const std::vector<FilterPlan>>> gpu_applying;
};

// Where the frame of a call is, as FFmpeg's enable= sees it (t in seconds, n its number, pos its
// byte offset): what the caller said, unset where it said nothing.
struct CallMoment {
    std::optional<double> t, pos;
    std::optional<int64_t> n;
};

class CompiledPlaneChain {
public:
    // Compiles `text` (once); `border` (mirror, replicate, zero; "": each filter's own) applies to
    // every filter; ffmpeg (FFmpeg 5.1's edge) to every filter, each of which must take it. Throws
    // Error(Usage) for a bad chain or border.
    CompiledPlaneChain(const std::string& text, const std::string& border, bool ffmpeg_defaults);
    ~CompiledPlaneChain();

    const std::string& text() const { return spec_->text(); }
    // True when a filter of the chain has enable= (a call must say where its frame is).
    bool timed() const { return !timed_filter_.empty(); }
    // The plans for planes of width x height, made on the first call for that size.
    std::shared_ptr<const PlaneSizePlans> plans(int width, int height);
    // Which filters of `plans` apply to a call's frame of width x height (enable=): every one where
    // no filter has enable=. Throws Error(Usage) when one has and the call gave neither t nor n.
    std::vector<bool> filters_applying(const PlaneSizePlans& plans, const CallMoment& when, int width, int height) const;
    // The GPU's plans of the filters `applies` marks in plans.cpu (those that copy left out).
    std::shared_ptr<const std::vector<FilterPlan>> gpu_plans(const PlaneSizePlans& plans, const std::vector<bool>& applies);
    // The GPU chains prepared for this chain (kept while it lives).
    GpuApplyCache& gpu_cache() { return gpu_; }

private:
    std::shared_ptr<const ChainSpec> spec_;
    std::string timed_filter_;  // the first filter with enable= ("": none)
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
