// The CUDA backend: applies a PlaneOp to a channel in device memory on a given stream. `Auto`
// picks the fastest path for the op; the others force a path (tests and the benchmark use them
// to show what each step buys). Only built when CUDA is found at configure time.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/plan.hpp"
#include "kernels/plane.hpp"

namespace vf {

enum class GpuKernel { Auto, Naive, Constant, Tiled, Separable };

const char* gpu_kernel_name(GpuKernel k);
// Accepts auto|naive|constant|tiled|separable; returns false otherwise.
bool parse_gpu_kernel(const std::string& name, GpuKernel* out);

// True when a CUDA device can be used; otherwise `reason` says why (for one log line).
bool cuda_device_available(std::string* reason);

class CudaBackend {
public:
    // What Auto runs for this op (Separable for rank-1 kernels, else Tiled).
    static GpuKernel choose(const PlaneOp& op);
    // src and dst are device memory of equal size. Asynchronous on `stream`.
    void apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
               GpuKernel kernel = GpuKernel::Auto) const;
};

}  // namespace vf
