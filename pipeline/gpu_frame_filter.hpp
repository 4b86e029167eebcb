// Runs a filter chain on the GPU, one frame at a time: upload, every filter of the chain on
// device buffers allocated once and reused (ping-pong between two), download. One stream,
// synchronous per frame; the overlapped multi-stream pipeline builds on this.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cuda_backend.hpp"
#include "kernels/plan.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/frame_pool.hpp"

namespace vf {

class GpuFrameFilter {
public:
    GpuFrameFilter(std::vector<FilterPlan> chain, GpuKernel kernel);
    ~GpuFrameFilter();
    AvFramePtr process(const AVFrame* in, FramePool& pool);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vf
