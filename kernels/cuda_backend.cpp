#include "kernels/cuda_backend.hpp"

#include <mutex>

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
    // FFmpeg's NVDEC shares CUDA's primary context only if it was created with the flags NVDEC asks
    // for (blocking sync); created by a kernel launch first, with the runtime's own flags, NVDEC
    // refuses it and decoding falls back to the CPU. So the flags are set before anything creates
    // the context, whichever part of vfilter reaches the GPU first (a served file's filters before
    // a camera's NVDEC decoder, say). Set once; an already created context keeps its flags.
    static std::once_flag flags_set;
    std::call_once(flags_set, [] {
        if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) cudaGetLastError();
    });
    return true;
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
