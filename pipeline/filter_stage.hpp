// Applies a filter chain to whole frames on a backend. Output frames come from a pool, so the
// steady state allocates nothing; an identity chain hands the input frame on untouched.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cpu_backend.hpp"
#include "kernels/plan.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/frame_pool.hpp"

namespace vf {

class FilterStage {
public:
    FilterStage(std::vector<FilterPlan> chain, int threads);
    AvFramePtr process(AvFramePtr in);
    int threads() const { return backend_.threads(); }
    const std::vector<FilterPlan>& chain() const { return chain_; }

private:
    std::vector<FilterPlan> chain_;
    CpuBackend backend_;
    std::unique_ptr<FramePool> pool_;
};

}  // namespace vf
