#include "media/host_memory.hpp"

#include <spdlog/spdlog.h>

#include <cstring>
#include <map>
#include <mutex>

#ifdef VF_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace vf {

#ifdef VF_HAVE_CUDA
namespace {

// Page-locked blocks given back by frame pools that ended (a stream of serve removed or
// restarted, a filter chain rebuilt), kept for the next pool that asks for the same size, so the
// streams of one process share their page-locked memory instead of pinning it again:
// cudaHostAlloc pins page by page and waits on the GPU. Bounded: beyond the limit a block is freed.
class PinnedBlocks {
public:
    static constexpr size_t kLimit = size_t(1) << 30;

    void* take(size_t size) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = free_.find(size);
        if (it == free_.end()) return nullptr;
        void* p = it->second;
        free_.erase(it);
        cached_ -= size;
        return p;
    }
    // A block fresh from cudaHostAlloc, counted until cudaFreeHost.
    void pinned(size_t size) {
        std::lock_guard<std::mutex> lock(mutex_);
        pinned_ += size;
    }
    void give(void* p, size_t size) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (cached_ + size <= kLimit) {
                free_.emplace(size, p);
                cached_ += size;
                return;
            }
            pinned_ -= size;
        }
        cudaFreeHost(p);
    }
    PinnedHostBytes bytes() {
        std::lock_guard<std::mutex> lock(mutex_);
        return {pinned_, cached_};
    }

private:
    std::mutex mutex_;
    std::multimap<size_t, void*> free_;
    size_t cached_ = 0;
    size_t pinned_ = 0;
};

// Never destroyed: at exit the CUDA runtime may already be gone, and the OS takes the memory back.
PinnedBlocks& pinned_blocks() {
    static PinnedBlocks* blocks = new PinnedBlocks;
    return *blocks;
}

}  // namespace
#endif

PinnedHostBytes pinned_host_bytes() {
#ifdef VF_HAVE_CUDA
    return pinned_blocks().bytes();
#else
    return {};
#endif
}

size_t pinned_bytes_kept() { return pinned_host_bytes().kept; }

AVBufferRef* pinned_buffer_alloc(size_t size) {
#ifdef VF_HAVE_CUDA
    void* p = pinned_blocks().take(size);
    cudaError_t err = cudaSuccess;
    if (!p) {
        err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
        if (err == cudaSuccess) pinned_blocks().pinned(size);
    }
    if (err == cudaSuccess) {
        std::memset(p, 0, size);  // decoders may rely on zeroed padding, as with av_buffer_allocz
        // The size rides in the free callback's opaque pointer, for the block's way back.
        AVBufferRef* b = av_buffer_create(
            static_cast<uint8_t*>(p), size,
            [](void* bytes, uint8_t* data) { pinned_blocks().give(data, reinterpret_cast<size_t>(bytes)); },
            reinterpret_cast<void*>(size), 0);
        if (!b) pinned_blocks().give(p, size);
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
