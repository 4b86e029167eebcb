// vfilter.apply on GPU memory (PyTorch and CuPy tensors, anything with __cuda_array_interface__ or
// __dlpack__): the chain runs in place of the caller's data on the caller's CUDA stream, with no
// copy in or out and no synchronisation; planes of one call (the channels and images of a batch)
// go through the dispatch table's batched launches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/plane.hpp"
#include "kernels/plan.hpp"
#include "pipeline/gpu_runtime.hpp"

namespace vf {

// The GPU chains a compiled chain (compiled_chain.hpp) prepared lately (kernels/cuda/prepared_chain.hpp),
// kept so that a loop filtering frame after frame prepares it once: the last few, each freed when
// it drops out (or with the compiled chain).
// The module's GPU runtime (pipeline/gpu_runtime.hpp): one while any compiled chain or job of the
// module holds it, so that dropping them (and vfilter's cache of recent chains) gives every GPU
// resource back; made anew by the next that needs it.
std::shared_ptr<GpuRuntime> module_gpu_runtime();

class GpuApplyCache {
public:
    GpuApplyCache();
    ~GpuApplyCache();
    GpuApplyCache(const GpuApplyCache&) = delete;
    GpuApplyCache& operator=(const GpuApplyCache&) = delete;
    struct Impl;
    std::unique_ptr<Impl> impl;
};

// The GPUs that hold a call's image and out, where the door knows them; -1: CUDA is asked from
// the address (which also refuses host memory posing as GPU memory).
struct GpuArrayDevices {
    int image = -1;
    int out = -1;
};

// Filters src[i] into dst[i] (planes of the caller's GPU memory, all of one size; 8-bit uint8 or
// 10-bit uint16) with `chain` (planned for their size, filters that copy left out) on `stream`
// (a cudaStream_t as a number, with the __cuda_array_interface__ meanings of 1 and 2: the legacy
// and per-thread default streams), after the work on `producer_stream` when >= 0 (the stream the
// data was written on, where it is not the caller's). Throws Error: Usage for bad arguments,
// Device for CUDA's failures (and in a build without CUDA).
void apply_device_planes(GpuApplyCache& cache, const std::vector<PlaneView>& src, const std::vector<PlaneView>& dst,
                         GpuArrayDevices devices, const std::shared_ptr<const std::vector<FilterPlan>>& chain,
                         uintptr_t stream, int64_t producer_stream);

// True when this module was built with the CUDA backend.
bool built_with_cuda();

}  // namespace vf
