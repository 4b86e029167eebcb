// What the current CUDA device allows, for the variants that size their shared memory or their
// grid by it. Asked of the driver when an operation is prepared (DeviceContext keeps its device's).
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

}  // namespace vf::cuda
