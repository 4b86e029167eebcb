#include "pipeline/gpu_runtime.hpp"

#include <string>
#include <utility>

#include "common/error.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_frame_filter.hpp"
#endif

namespace vf {

GpuDevice::GpuDevice(int index, const GpuRuntimeOptions& options, std::shared_ptr<PageLockedStore> page_locked)
    : index_(index), batch_wait_us_(options.batch_wait_us), page_locked_(std::move(page_locked)),
      nvdec_(std::make_shared<NvdecDevice>(index, options.nvdec_slots)) {
#ifdef VF_HAVE_CUDA
    use_blocking_sync(index);  // before anything of this runtime makes the device's context
    context_ = cuda::DeviceContext::create(index);
#endif
}

GpuDevice::~GpuDevice() = default;

std::shared_ptr<SharedGpuStage> GpuDevice::batch_stage() {
#ifdef VF_HAVE_CUDA
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto live = batch_stage_.lock()) return live;
    auto made = make_shared_gpu_stage(index_, batch_wait_us_ < 0 ? 0 : batch_wait_us_, batch_counters_);
    batch_stage_ = made;
    return made;
#else
    fail(ErrorCategory::Device, "this vfilter was built without CUDA");
#endif
}

GpuRuntime::GpuRuntime(GpuRuntimeOptions options) : options_(options) {}

GpuRuntime::~GpuRuntime() = default;

std::shared_ptr<GpuDevice> GpuRuntime::device(int index) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = devices_.find(index); it != devices_.end()) return it->second;
#ifdef VF_HAVE_CUDA
    if (index < 0 || index >= gpu_count())
        fail(ErrorCategory::Device, "GPU " + std::to_string(index) + " does not exist (CUDA sees " + std::to_string(gpu_count()) + ")");
    auto made = std::make_shared<GpuDevice>(index, options_, page_locked_);
    devices_[index] = made;
    return made;
#else
    fail(ErrorCategory::Device, "this vfilter was built without CUDA (no nvcc at configure time); use --device cpu");
#endif
}

std::vector<std::shared_ptr<GpuDevice>> GpuRuntime::devices() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<GpuDevice>> out;
    for (const auto& [index, d] : devices_) out.push_back(d);
    return out;
}

std::shared_ptr<GpuRuntime> SharedGpuRuntime::get() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto live = runtime_.lock()) return live;
    auto made = std::make_shared<GpuRuntime>();
    runtime_ = made;
    return made;
}

}  // namespace vf
