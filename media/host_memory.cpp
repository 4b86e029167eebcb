#include "media/host_memory.hpp"

#include <spdlog/spdlog.h>

#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#ifdef VF_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace vf {

namespace {

// What a page-locked buffer's free callback needs: the block's size, and the store it goes back
// to (held, so that the store outlives its last buffer).
struct PinnedBlock {
    std::shared_ptr<PageLockedStore> store;
    size_t size;
};

}  // namespace

PageLockedStore::~PageLockedStore() {
#ifdef VF_HAVE_CUDA
    for (auto& [size, p] : free_) cudaFreeHost(p);
#endif
}

void* PageLockedStore::take(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(size);
    if (it == free_.end()) return nullptr;
    void* p = it->second;
    free_.erase(it);
    kept_ -= size;
    return p;
}

void PageLockedStore::give(void* p, size_t size) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (kept_ + size <= keep_limit_) {
            free_.emplace(size, p);
            kept_ += size;
            return;
        }
        pinned_ -= size;
    }
#ifdef VF_HAVE_CUDA
    cudaFreeHost(p);
#endif
}

PinnedHostBytes PageLockedStore::bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {pinned_, kept_};
}

BufferAllocator PageLockedStore::allocator() {
    std::shared_ptr<PageLockedStore> self = shared_from_this();
    return [self](size_t size) { return self->alloc(size); };
}

AVBufferRef* PageLockedStore::alloc(size_t size) {
#ifdef VF_HAVE_CUDA
    void* p = take(size);
    cudaError_t err = cudaSuccess;
    if (!p) {
        err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
        if (err == cudaSuccess) {
            std::lock_guard<std::mutex> lock(mutex_);
            pinned_ += size;
        }
    }
    if (err == cudaSuccess) {
        std::memset(p, 0, size);  // decoders may rely on zeroed padding, as with av_buffer_allocz
        auto* block = new PinnedBlock{shared_from_this(), size};
        AVBufferRef* b = av_buffer_create(
            static_cast<uint8_t*>(p), size,
            [](void* opaque, uint8_t* data) {
                std::unique_ptr<PinnedBlock> back(static_cast<PinnedBlock*>(opaque));
                back->store->give(data, back->size);
            },
            block, 0);
        if (!b) {
            delete block;
            give(p, size);
        }
        return b;
    }
    cudaGetLastError();  // clear it: the fallback below is not an error of any later call
    bool say = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        say = !std::exchange(warned_, true);
    }
    if (say)
        spdlog::warn("page-locked host memory unavailable ({}); frame uploads go through a staging copy",
                     cudaGetErrorString(err));
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
