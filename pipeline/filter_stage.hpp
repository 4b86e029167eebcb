// Applies a filter chain to whole frames on a backend. Output frames come from a pool, so the
// steady state allocates nothing; an identity chain hands the input frame on untouched.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu_backend.hpp"
#include "kernels/plan.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/frame_pool.hpp"

namespace vf {

class GpuFrameFilter;

enum class Device { Cpu, Cuda };

class FilterStage {
public:
    // gpu_kernel: auto|naive|constant|tiled|separable, used with Device::Cuda.
    FilterStage(std::vector<FilterPlan> chain, int threads, Device device = Device::Cpu,
                const std::string& gpu_kernel = "auto");
    ~FilterStage();
    AvFramePtr process(AvFramePtr in);
    int threads() const { return backend_.threads(); }
    Device device() const { return device_; }
    const std::vector<FilterPlan>& chain() const { return chain_; }

private:
    std::vector<FilterPlan> chain_;
    Device device_;
    CpuBackend backend_;
    std::unique_ptr<GpuFrameFilter> gpu_;
    std::unique_ptr<FramePool> pool_;
};

}  // namespace vf
