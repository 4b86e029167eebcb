// One CUDA stream's slot of the GPU stage (pipeline/gpu_frame_filter.hpp): its device images and
// how frames' planes lie in them, its stream, scratch and events, and the frame it is working on;
// it launches that frame's kernels and queues its download. Shared by the stage
// (gpu_frame_filter.cpp) and the device's batch window, which launches several slots' frames at
// once. Internal to pipeline/'s GPU stage.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/prepared_chain.hpp"
#include "kernels/cuda/workspace.hpp"
#include "pipeline/batch_window.hpp"
#include "pipeline/gpu_frame_filter.hpp"
#include "pipeline/gpu_frame_layout.hpp"

namespace vf {

// A frame waiting in the batch window: which engine's chain it runs and on which slot.
struct GpuJob : BatchJob {
    GpuFrameFilter::Impl* engine = nullptr;
    GpuFrameFilter::Slot* slot = nullptr;
};

// The planes one filter of the chain reads and writes.
struct FilterStep {
    std::vector<PlaneView> src, dst;
};

// One stream's worth of state: its device images, its scratch, and the frame it is working on.
struct GpuFrameFilter::Slot {
    cuda::Stream stream;
    cuda::Workspace workspace{stream.get()};
    cuda::Event start, uploaded, filtered, done{cudaEventBlockingSync};
    cuda::Event hw_ready{cudaEventDisableTiming};
    GpuFrameLayout layout;
    int linesize[4] = {0, 0, 0, 0};
    // Ping-pong between the filters of the chain: one block per image, its planes laid out in it
    // at `offset`. A block is kept across layouts that fit in it, so a stream whose decoder moves
    // (the CPU's planar frames, NVDEC's NV12: the same bytes) allocates and frees nothing there:
    // new images are slow to make while many cameras start (docs/benchmarks.md, "Moving a stream
    // between decoders"), and a cudaFree waits for the GPU.
    cuda::DeviceBuffer image[2];
    size_t offset[4] = {0, 0, 0, 0};
    size_t image_bytes = 0;  // what the layout needs of a block
    AvFramePtr in, out;              // held until the frame is finished
    // The chain this frame runs (and its filters' names), held until the frame leaves: a chain
    // replaced meanwhile is freed with its last frame.
    std::shared_ptr<const cuda::PreparedChain> prepared;
    std::shared_ptr<const std::vector<FilterPlan>> plans;
    bool staged = false;             // the upload came from pageable memory
    std::vector<FilterStep> steps;   // the frame's kernels, launched from submit() or by the window
    uint8_t* result[4] = {nullptr, nullptr, nullptr, nullptr};  // where the last filter's output lies
    int result_linesize[4] = {0, 0, 0, 0};
    std::vector<const char*> ran;    // the rows that ran, filter by channel
    int launch_frames = 1;           // frames filtered by the launch that filtered this one
    GpuJob job;
    bool waiting = false;            // in the batch window, not launched yet (or not yet seen launched)
    FilterMask applies;              // the filters enable= applies to this frame (empty: all)

    bool applies_filter(size_t f) const { return applies.empty() || applies[f]; }
    // A filter enable= leaves out: its input copied to its output, so the next reads as always.
    static void copy_channel(const PlaneView& src, const PlaneView& dst, cudaStream_t st);

    // Kernels of the frame on the slot's own stream, one launch per filter and channel.
    void filter();
    // The download of the result into `out` on the slot's own stream, after the kernels (a copy
    // within the GPU when `out` is a device frame: CUDA tells them apart by address).
    void download();

    // Sets the size and layout. Each image is allocated the first time it is used (NVDEC frames
    // are read in place, so a one-filter chain on them never needs the second), and kept while
    // the layouts that follow fit in it.
    void allocate(const GpuFrameLayout& l);
    void ensure_image(int which);
    uint8_t* plane(int which, int p) const { return image[which].data() + offset[p]; }
    // The channels of device image `which` (allocated now if it is not yet).
    std::vector<PlaneView> device_views(int which);
};

}  // namespace vf
