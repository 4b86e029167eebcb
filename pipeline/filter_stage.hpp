// Applies a filter chain to whole frames on a backend. Output frames come from a pool, so the
// steady state allocates nothing; an identity chain hands the input frame on untouched.
//
// Frames go in with submit() and come out, in the same order, with take(): on the CPU each frame
// is finished inside submit(); on the GPU several are in flight at once (see GpuFrameFilter).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "config/options.hpp"
#include "kernels/cpu_backend.hpp"
#include "kernels/plan.hpp"
#include "media/frame.hpp"
#include "pipeline/frame_engine.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "media/frame_pool.hpp"
#include "pipeline/stats.hpp"

namespace vf {

enum class Device { Cpu, Cuda };

struct FilterStageOptions {
    Device device = Device::Cpu;
    int threads = 0;                  // CPU threads (0 = one per core)
    KernelChoice gpu_kernel;          // auto, a family or a row of the GPU dispatch table (--list-kernels)
    int gpu_streams = kDefaultGpuStreams;  // frames in flight on the GPU
    // The GPU to filter on, from the entry point's runtime (pipeline/gpu_runtime.hpp: its batch
    // window and page-locked memory come with it); needed with device Cuda.
    std::shared_ptr<GpuDevice> gpu;
    // Output frames in device memory (same formats, data[] on the GPU) instead of page-locked host
    // frames: for a consumer on the GPU (Python's Frames), which then needs no download. Every
    // frame goes through the GPU stage, an identity chain too.
    bool gpu_output_on_device = false;
    // Host frames' results written over their own planes instead of into page-locked frames of the
    // stage's pool (GpuFrameFilter's results_over_input): for a caller that filters in place.
    bool gpu_results_over_input = false;
    // An engine to filter through instead of the device's own, made from the chain (tests inject a
    // CpuFrameEngine: the GPU stage's frames in flight without a GPU). Empty: the device's own.
    std::function<std::unique_ptr<FrameEngine>(const std::vector<FilterPlan>&)> engine_factory;
    // The time base of the frames' pts, for enable= expressions of t ({0, 1}: t is unknown, NAN),
    // and where t is 0: t = pts in seconds minus time_origin_s (FFmpeg's: the input's start time).
    AVRational time_base{0, 1};
    double time_origin_s = 0;
};

class FilterStage {
public:
    FilterStage(std::vector<FilterPlan> chain, const FilterStageOptions& options);
    // The CPU-only form the tests and tools use.
    FilterStage(std::vector<FilterPlan> chain, int threads) : FilterStage(std::move(chain), cpu_options(threads)) {}
    ~FilterStage();

    // Starts filtering `in`; may first wait for the oldest frame in flight to finish.
    void submit(AvFramePtr in);
    // The next finished frame in submission order; nullptr when none is pending, or with
    // wait=false when the oldest is still on the GPU.
    AvFramePtr take(bool wait);
    // Synchronous convenience: submit and wait for this frame (nothing else in flight).
    AvFramePtr process(AvFramePtr in);
    // Replaces the chain from the next submitted frame on (frames already submitted finish with the
    // old one first), as FFmpeg's filters take commands while running. Safe to call from any
    // thread; the filter thread makes the swap. The engine stays: on the GPU its streams and images
    // are kept, and only the prepared chain changes. chain() is the filter thread's view.
    void set_chain(std::vector<FilterPlan> chain);

    int threads() const { return backend_.threads(); }
    Device device() const { return device_; }
    int gpu_streams() const;
    const std::vector<FilterPlan>& chain() const { return chain_; }
    // Per-frame step times of an engine (the GPU's upload, kernels, download; empty otherwise).
    std::vector<StageSummary> gpu_stages(double wall_s) const { return engine_ ? engine_->steps(wall_s) : std::vector<StageSummary>{}; }
    double gpu_ms_per_frame() const { return engine_ ? engine_->ms_per_frame() : 0; }
    std::vector<std::string> kernel_rows() const { return engine_ ? engine_->kernel_rows() : std::vector<std::string>{}; }
    int64_t staged_uploads() const { return engine_ ? engine_->staged_uploads() : 0; }
    double frames_per_launch() const { return engine_ ? engine_->frames_per_launch() : 0; }
    const FrameEngine* engine() const { return engine_.get(); }

private:
    static FilterStageOptions cpu_options(int threads) {
        FilterStageOptions o;
        o.threads = threads;
        return o;
    }
    FramePool& pool_for(const AVFrame* f);
    void make_engine();
    void take_pending_chain();
    // The filters of the chain enable= applies to `f` (empty: all, as when no filter has enable=);
    // counts the frame (FFmpeg's n).
    FilterMask filters_for(const AVFrame* f);

    FilterStageOptions options_;
    std::vector<FilterPlan> chain_;
    std::mutex pending_mutex_;
    std::vector<FilterPlan> pending_chain_;
    std::atomic<bool> chain_pending_{false};
    Device device_;
    CpuBackend backend_;
    std::unique_ptr<FrameEngine> engine_;  // several frames in flight (GPU, or the CPU stand-in)
    std::unique_ptr<FramePool> pool_;
    std::deque<AvFramePtr> ready_;  // finished, not yet taken
    int64_t frames_submitted_ = 0;  // enable='...n...': the frame's number
};

}  // namespace vf
