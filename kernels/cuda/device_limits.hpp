// What the current CUDA device allows, for the launchers that size their shared memory or their
// grid by it. Asked of the driver on every call (a few cheap calls): the current device can differ
// from one thread to another.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.hpp"

namespace vf::cuda {

struct DeviceLimits {
    int major = 0;       // compute capability
    int optin_smem = 0;  // bytes of shared memory a block may opt in to
    int sms = 0;         // streaming multiprocessors
};

inline DeviceLimits device_limits() {
    int device = 0;
    DeviceLimits d;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, device));
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&d.optin_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
    return d;
}

// Lets `kernel` take as much dynamic shared memory as a block may opt in to on the current
// device (callers do it once per kernel, under a std::call_once).
inline void allow_optin_shared_memory(const void* kernel) {
    VF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, device_limits().optin_smem));
}

}  // namespace vf::cuda
