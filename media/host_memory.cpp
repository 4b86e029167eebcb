#include "media/host_memory.hpp"

#include <spdlog/spdlog.h>

#include <cstring>
#include <mutex>

#ifdef VF_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace vf {

AVBufferRef* pinned_buffer_alloc(size_t size) {
#ifdef VF_HAVE_CUDA
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    if (err == cudaSuccess) {
        std::memset(p, 0, size);  // decoders may rely on zeroed padding, as with av_buffer_allocz
        AVBufferRef* b = av_buffer_create(
            static_cast<uint8_t*>(p), size, [](void*, uint8_t* data) { cudaFreeHost(data); }, nullptr, 0);
        if (!b) cudaFreeHost(p);
        return b;
    }
    cudaGetLastError();  // clear it: the fallback below is not an error of any later call
    static std::once_flag said;
    std::call_once(said, [&] {
        spdlog::warn("page-locked host memory unavailable ({}); frame uploads go through a staging copy",
                     cudaGetErrorString(err));
    });
#endif
    return av_buffer_allocz(size);
}

AVBufferRef* device_buffer_alloc(size_t size) {
#ifdef VF_HAVE_CUDA
    void* p = nullptr;
    if (cudaMalloc(&p, size) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    AVBufferRef* b = av_buffer_create(
        static_cast<uint8_t*>(p), size, [](void*, uint8_t* data) { cudaFree(data); }, nullptr, 0);
    if (!b) cudaFree(p);
    return b;
#else
    (void)size;
    return nullptr;
#endif
}

bool is_pinned(const void* p) {
#ifdef VF_HAVE_CUDA
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
#else
    (void)p;
    return false;
#endif
}

}  // namespace vf
