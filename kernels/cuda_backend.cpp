#include "kernels/cuda_backend.hpp"

#include "common/error.hpp"

namespace vf {

bool cuda_device_available(std::string* reason, std::string* detail) {
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        // What a user can act on first; CUDA's own words for those who ask (-v).
        const bool none = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError;
        if (reason) *reason = none ? "no NVIDIA GPU or driver found" : "the NVIDIA GPU cannot be used";
        if (detail) *detail = std::string("CUDA: ") + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error
        return false;
    }
    if (n == 0) {
        if (reason) *reason = "no NVIDIA GPU found";
        if (detail) *detail = "CUDA: no device";
        return false;
    }
    return true;
}

void use_blocking_sync(int device) {
    // Flags are the device's (its primary context's): set for each device, and overwritten on a
    // context already made, whichever part of vfilter reached the GPU first. The device stays
    // current: putting the previous one back would make a context on a GPU nobody asked for.
    if (cudaSetDevice(device) != cudaSuccess || cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess)
        cudaGetLastError();  // a device that cannot be set shows in the first call that needs it
}

int gpu_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

std::string gpu_pci_bus_id(int index) {
    char id[32] = {};
    if (cudaDeviceGetPCIBusId(id, sizeof id, index) != cudaSuccess) {
        cudaGetLastError();
        return {};
    }
    return id;
}

bool select_gpu(int index, std::string* why) {
    const int n = gpu_count();
    if (index < 0 || index >= n) {
        *why = "GPU " + std::to_string(index) + " does not exist (CUDA sees " + std::to_string(n) + ")";
        return false;
    }
    // Already current (GPU 0 by default): nothing to do. cudaSetDevice would create the primary
    // context now, with the runtime's flags, and NVDEC (FFmpeg) then refuses to share it.
    int now = -1;
    if (cudaGetDevice(&now) == cudaSuccess && now == index) return true;
    cudaError_t err = cudaSetDevice(index);
    // The flags FFmpeg's NVDEC asks of the primary context, so that it can share this one.
    if (err == cudaSuccess) err = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (err != cudaSuccess) {
        *why = "cannot use GPU " + std::to_string(index) + ": " + cudaGetErrorString(err);
        cudaGetLastError();
        return false;
    }
    return true;
}

bool gpu_memory_info(size_t* used_bytes, size_t* total_bytes) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    *used_bytes = total - free_bytes;
    *total_bytes = total;
    return true;
}

}  // namespace vf
