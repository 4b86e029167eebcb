// VF_CUDA_CHECK: throws Error(Device) with file:line and CUDA's own message. Used after every
// runtime call and, through VF_CUDA_CHECK_LAUNCH, after every kernel launch.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"

namespace vf {

inline void cuda_check(cudaError_t err, const char* what, const char* file, int line) {
    if (err == cudaErrorMemoryAllocation)  // the one an operator can act on: say it first
        throw Error(ErrorCategory::Device, std::string("out of GPU memory (") + what + " at " + file + ":" +
                                               std::to_string(line) + "); try fewer --gpu-streams or a smaller frame");
    if (err != cudaSuccess)
        throw Error(ErrorCategory::Device, std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                                               cudaGetErrorString(err));
}

}  // namespace vf

#define VF_CUDA_CHECK(expr) ::vf::cuda_check((expr), #expr, __FILE__, __LINE__)
#define VF_CUDA_CHECK_LAUNCH(name) ::vf::cuda_check(cudaGetLastError(), "launching " name, __FILE__, __LINE__)
