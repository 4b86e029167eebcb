// VF_CUDA_CHECK: throws Error(Device) with file:line and CUDA's own message. Used after every
// runtime call and, through VF_CUDA_CHECK_LAUNCH, after every kernel launch.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"

namespace vf {

// Errors after which the process's CUDA context is unusable (every later call fails): the GPU
// faulted, lost memory contents, or is gone. The operator's next step is the GPU, not vfilter's
// options, so the message says so.
inline bool gpu_lost(cudaError_t err) {
    switch (err) {
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorECCUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorDeviceUninitialized:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

inline void cuda_check(cudaError_t err, const char* what, const char* file, int line) {
    if (gpu_lost(err))
        throw Error(ErrorCategory::Device, std::string("the GPU failed and cannot be used by this process (") +
                                               cudaGetErrorString(err) + ", at " + what + " " + file + ":" +
                                               std::to_string(line) + "); look for Xid errors in the kernel log and at nvidia-smi");
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
