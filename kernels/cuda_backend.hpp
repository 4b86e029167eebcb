// The CUDA backend: applies a PlaneOp to a channel in device memory on a given stream. `Auto`
// picks the fastest path for the op; the others force a path (tests and the benchmark use them
// to show what each step buys). Only built when CUDA is found at configure time.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf {

enum class GpuKernel { Auto, Naive, Constant, Tiled, Separable, Fft, Tensor };

const char* gpu_kernel_name(GpuKernel k);
// Accepts auto|naive|constant|tiled|separable|fft|tensor; returns false otherwise.
bool parse_gpu_kernel(const std::string& name, GpuKernel* out);

// True when a CUDA device can be used; otherwise `reason` says why (for one log line).
bool cuda_device_available(std::string* reason);

class CudaBackend {
public:
    // What Auto runs: Separable for rank-1 kernels; for dense kernels of 7x7 and more, the
    // fastest of Tiled, Tensor (whole-number taps it takes exactly) and, from 15x15, Fft, timed
    // once per kernel and plane size (the first call pays for it); Tiled otherwise.
    GpuKernel choose(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream) const;
    // src and dst are device memory of equal size. Asynchronous on `stream`.
    void apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
               GpuKernel kernel = GpuKernel::Auto) const;
};

}  // namespace vf
