// The GPU state of one entry point (the command line, serve, the GStreamer element, the Python
// module): every per-device resource, made when first needed, passed down explicitly, read by
// /metrics and freed when the runtime and the last of its users are gone. No process-wide static
// holds GPU state; two runtimes in one process share nothing but the GPU itself.
//
// Per GPU (GpuDevice): the device's flags (set before anything else uses it), its context of
// prepared chains and constant memory (kernels/cuda/device_context.hpp), the shared stage that
// batches launches across streams with its CUDA streams and thread (pipeline/gpu_frame_filter.hpp),
// and its NVDEC gate and shared decoders (decode/nvdec_device.hpp). For the host: the store of
// page-locked frame memory (media/host_memory.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "decode/nvdec_device.hpp"
#include "media/host_memory.hpp"

namespace vf {

namespace cuda {
class DeviceContext;
}
struct SharedGpuStage;

// What the entry point decides for every GPU of its runtime.
struct GpuRuntimeOptions {
    int nvdec_slots = 0;     // NVDEC decoders of a GPU that decode at once (decode/nvdec_gate.hpp); 0: no gate
    int batch_wait_us = -1;  // >= 0: GPU frames wait up to this long for other streams' frames to share a launch
};

// Launches of a device's batch window since its runtime began.
struct GpuBatchTotals {
    int64_t launches = 0;  // batched launches (each is one launch per filter and channel)
    int64_t frames = 0;    // frames they filtered
};
struct GpuBatchCounters {
    std::atomic<int64_t> launches{0}, frames{0};
};

// One GPU's share of a runtime.
class GpuDevice {
public:
    GpuDevice(int index, const GpuRuntimeOptions& options, std::shared_ptr<PageLockedStore> page_locked);
    ~GpuDevice();
    GpuDevice(const GpuDevice&) = delete;
    GpuDevice& operator=(const GpuDevice&) = delete;

    int index() const { return index_; }
    int batch_wait_us() const { return batch_wait_us_; }
    const std::shared_ptr<NvdecDevice>& nvdec() const { return nvdec_; }
    const std::shared_ptr<PageLockedStore>& page_locked() const { return page_locked_; }
    // The device's context (prepared chains, constant memory, function attributes); CUDA builds.
    const std::shared_ptr<cuda::DeviceContext>& context() const { return context_; }
    // The device's batch window and its streams: made when an engine first asks, freed with the
    // last engine that uses it (CUDA builds).
    std::shared_ptr<SharedGpuStage> batch_stage();
    const std::shared_ptr<GpuBatchCounters>& batch_counters() const { return batch_counters_; }
    GpuBatchTotals batch_totals() const { return {batch_counters_->launches.load(), batch_counters_->frames.load()}; }

private:
    const int index_;
    const int batch_wait_us_;
    std::shared_ptr<PageLockedStore> page_locked_;
    std::shared_ptr<cuda::DeviceContext> context_;
    std::shared_ptr<NvdecDevice> nvdec_;
    std::shared_ptr<GpuBatchCounters> batch_counters_ = std::make_shared<GpuBatchCounters>();
    std::mutex mutex_;
    std::weak_ptr<SharedGpuStage> batch_stage_;
};

class GpuRuntime {
public:
    explicit GpuRuntime(GpuRuntimeOptions options = {});
    ~GpuRuntime();
    GpuRuntime(const GpuRuntime&) = delete;
    GpuRuntime& operator=(const GpuRuntime&) = delete;

    // GPU `index` (a CUDA device number), made on first use. Throws Error(Device) for a GPU that
    // does not exist or a build without CUDA.
    std::shared_ptr<GpuDevice> device(int index);
    // The GPUs used so far, by index (for /metrics).
    std::vector<std::shared_ptr<GpuDevice>> devices() const;
    // Page-locked host memory for frames that go to or come from the GPU.
    const std::shared_ptr<PageLockedStore>& page_locked() const { return page_locked_; }
    const GpuRuntimeOptions& options() const { return options_; }

private:
    const GpuRuntimeOptions options_;
    std::shared_ptr<PageLockedStore> page_locked_ = std::make_shared<PageLockedStore>();
    mutable std::mutex mutex_;
    std::map<int, std::shared_ptr<GpuDevice>> devices_;
};

// A runtime made when an entry point's first user asks and freed with its last (the GStreamer
// elements of a process, the Python module's chains and jobs): such an entry point keeps one.
class SharedGpuRuntime {
public:
    std::shared_ptr<GpuRuntime> get();

private:
    std::mutex mutex_;
    std::weak_ptr<GpuRuntime> runtime_;
};

}  // namespace vf
