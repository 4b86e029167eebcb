// A filter engine that keeps several frames in flight: the GPU stage (GpuFrameFilter, one CUDA
// stream per slot) and its CPU stand-in (CpuFrameEngine, one worker thread per slot), which runs
// the same ring, ordering, backpressure and shutdown logic where there is no GPU, so CI tests it.
//
// Contract: submit() needs in_flight() < capacity() (the caller takes the oldest frame first:
// that is the backpressure); take() returns frames in submission order; the destructor waits for
// frames in flight and drops them.
#pragma once

#include <string>
#include <vector>

#include "kernels/plan.hpp"
#include "media/frame.hpp"
#include "media/frame_pool.hpp"
#include "pipeline/stats.hpp"

namespace vf {

// Which filters of a chain apply to one frame, by their place in the chain (FFmpeg's enable=);
// empty: every filter.
using FilterMask = std::vector<bool>;

class FrameEngine {
public:
    virtual ~FrameEngine() = default;
    virtual int capacity() const = 0;
    virtual int in_flight() const = 0;
    // Starts filtering `in` into a frame from `pool` (matching the input's size and layout), with
    // the filters of the chain that `applies` marks (enable=); the others pass it unchanged. Empty:
    // every filter.
    virtual void submit(AvFramePtr in, FramePool& pool, const FilterMask& applies) = 0;
    void submit(AvFramePtr in, FramePool& pool) { submit(std::move(in), pool, FilterMask{}); }
    // The oldest frame in flight once finished; with wait=false nullptr while it still runs;
    // nullptr when nothing is in flight. Rethrows the error that stopped a frame.
    virtual AvFramePtr take(bool wait) = 0;
    // Replaces the filter chain for the frames submitted from now on. Call with nothing in flight
    // (FilterStage takes every frame first): the engine keeps its slots, streams and memory.
    virtual void set_chain(std::vector<FilterPlan> chain) = 0;
    // Per-frame times of the engine's own steps (the GPU's upload, kernels, download).
    virtual std::vector<StageSummary> steps(double wall_s) const { (void)wall_s; return {}; }
    virtual double ms_per_frame() const { return 0; }
    // Frames uploaded from pageable memory: the driver copied them on the host first.
    virtual int64_t staged_uploads() const { return 0; }
    // Which kernel variant ran on each channel of each filter, for the last frame ("sobel Y:
    // gradient-strip16"): the GPU dispatch table's rows.
    virtual std::vector<std::string> kernel_rows() const { return {}; }
    // Mean frames filtered by the launches that filtered this engine's frames (1 when each frame
    // launches alone; more when a batch window gathers frames of several streams); 0 for none.
    virtual double frames_per_launch() const { return 0; }
};

}  // namespace vf
