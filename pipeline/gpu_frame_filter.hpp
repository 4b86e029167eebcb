// The GPU stage: runs a filter chain on frames with several CUDA streams in flight, so that
// while frame n's kernels run, frame n+1's upload and frame n-1's download are under way on the
// copy engines. Each stream owns a slot: device images allocated once and reused for every frame
// (and for frames of another layout that fits in them, as after a decoder move), and the stream's
// scratch. Frames leave in the order they came; at most `streams` frames are in flight, so memory
// does not grow with the stream.
//
// The chain runs as a prepared chain (kernels/cuda/prepared_chain.hpp) acquired from the device's
// store when the chain or the frames' geometry changes: every row chosen and everything the rows
// need made once, shared with the other streams that filter the same chain on the same geometry.
// A new chain (set_chain) keeps the slots, their streams and their images; each frame holds its
// prepared chain until it leaves, so an old chain is freed with its last frame.
//
// Input frames come from host memory (page-locked when the decoder used vfilter's buffers:
// then the upload is a DMA with no host copy) or from device memory (NVDEC frames, and frames
// of a native format whose planes are in this device's primary context, such as GStreamer's CUDA
// buffers through the element: read in place, no upload at all). Outputs are written into page-locked frames from the given pool.
//
// With a batch window (serve), the kernels of a frame do not launch from submit(): the frame
// waits in its device's shared window (pipeline/batch_window.hpp) for frames of other streams with
// the same chain and geometry, and one launch per filter and channel filters them all on one of
// the shared stage's CUDA streams; each frame's download then follows on its own slot's stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/gpu_kernel.hpp"
#include "kernels/plan.hpp"
#include "media/frame.hpp"
#include "pipeline/frame_engine.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "media/frame_pool.hpp"
#include "pipeline/stats.hpp"

namespace vf {

// GPU time of each step of each finished frame, from CUDA events.
struct GpuStageTimes {
    DurationHistogram upload, kernels, download, total;
    int64_t frames = 0;
    int64_t staged_uploads = 0;  // uploads from pageable memory: the driver copied on the host
    int64_t launch_frames = 0;   // the frames of the launches that filtered each frame, summed
};

// A device's batch window with the CUDA streams its launches run on (its GpuDevice makes it,
// pipeline/gpu_runtime.hpp); frames wait in it at most `wait_us`; its launches are counted in
// `counters`.
std::shared_ptr<SharedGpuStage> make_shared_gpu_stage(int device, int wait_us, std::shared_ptr<GpuBatchCounters> counters);

class GpuFrameFilter : public FrameEngine {
public:
    // device: the GPU of a runtime (pipeline/gpu_runtime.hpp) everything of this engine lives on
    // (made current in every call, so any thread may drive it). When the runtime batches
    // (batch_wait_us >= 0), frames go through the device's shared batch window, waiting at most
    // that long for other streams' frames; otherwise each launches at once.
    // results_over_input: a host frame's result is downloaded over its own planes (which the
    // caller lets it write: the GStreamer element filters its buffers in place) rather than into
    // a frame of the pool, so no host copy follows.
    GpuFrameFilter(std::vector<FilterPlan> chain, KernelChoice kernel, int streams, std::shared_ptr<GpuDevice> device,
                   bool results_over_input = false);
    ~GpuFrameFilter() override;

    int capacity() const override;
    int in_flight() const override;
    // Queues upload, filters and download of `in` on the next free stream; the output frame
    // comes from `pool` (which must match the input's size and layout). Needs in_flight() <
    // capacity(): take the oldest first.
    // A filter `applies` leaves out is a copy of its planes on the slot's stream: decided on the
    // host from the frame's time and number, so nothing waits for the GPU.
    using FrameEngine::submit;
    void submit(AvFramePtr in, FramePool& pool, const FilterMask& applies) override;
    // The oldest frame in flight once it is finished; with wait=false, nullptr while it is still
    // running. nullptr when nothing is in flight.
    AvFramePtr take(bool wait) override;
    // Nothing in flight (FilterStage takes every frame first).
    void set_chain(std::vector<FilterPlan> chain) override;
    const GpuStageTimes& times() const;
    std::vector<StageSummary> steps(double wall_s) const override;
    double ms_per_frame() const override { return times().total.mean(); }
    int64_t staged_uploads() const override { return times().staged_uploads; }
    std::vector<std::string> kernel_rows() const override;
    double frames_per_launch() const override;

private:
    friend struct GpuJob;
    friend struct SharedGpuStage;
    struct Slot;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vf
