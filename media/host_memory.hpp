// Where host frame buffers come from. Page-locked ("pinned") memory lets the GPU copy a frame
// straight from the buffer the decoder wrote (and into the one the encoder reads) with DMA;
// from ordinary pageable memory the CUDA driver first copies through a staging buffer, one hidden
// host copy per transfer. vfilter asks for pinned buffers whenever frames go to the GPU.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

extern "C" {
#include <libavutil/buffer.h>
}

namespace vf {

// Allocates one zeroed buffer of `size` bytes (nullptr on failure). Empty: FFmpeg's own.
using BufferAllocator = std::function<AVBufferRef*(size_t size)>;

// Page-locked host memory of one owner (the GPU runtime, pipeline/gpu_runtime.hpp), in frames or
// kept for reuse. In /metrics, since it is resident memory that no heap profiler sees.
struct PinnedHostBytes {
    size_t pinned = 0;  // every block pinned and not yet freed
    size_t kept = 0;    // of those, the ones kept for reuse
};

// Page-locked buffers. The store keeps the blocks freed buffers leave (up to `keep_limit` bytes,
// by size) for the next buffer of that size, so the streams of one runtime share their
// page-locked memory as they come and go: cudaHostAlloc pins page by page and waits on the GPU.
// Beyond the limit, and when the store ends, blocks go back with cudaFreeHost. Every buffer
// holds the store, so it ends with its owner's last buffer. A buffer is zeroed either way.
// Without CUDA in the build, or when the driver refuses (too much pinned memory), ordinary
// buffers, said once in the log.
class PageLockedStore : public std::enable_shared_from_this<PageLockedStore> {
public:
    static constexpr size_t kDefaultKeepLimit = size_t(1) << 30;
    explicit PageLockedStore(size_t keep_limit = kDefaultKeepLimit) : keep_limit_(keep_limit) {}
    ~PageLockedStore();
    PageLockedStore(const PageLockedStore&) = delete;
    PageLockedStore& operator=(const PageLockedStore&) = delete;

    AVBufferRef* alloc(size_t size);
    // alloc() as a BufferAllocator (for frame pools and decoders); holds the store.
    BufferAllocator allocator();
    PinnedHostBytes bytes() const;

private:
    void* take(size_t size);
    void give(void* p, size_t size);
    const size_t keep_limit_;
    mutable std::mutex mutex_;
    std::multimap<size_t, void*> free_;
    size_t kept_ = 0, pinned_ = 0;
    bool warned_ = false;
};

// Device memory (cudaMalloc, on the calling thread's current GPU) for frames that stay on the GPU,
// freed with cudaFree; nullptr (an allocation failure) without CUDA in the build or when the GPU
// is out of memory.
AVBufferRef* device_buffer_alloc(size_t size);

// True when `p` points into page-locked host memory known to CUDA (false without CUDA).
bool is_pinned(const void* p);

}  // namespace vf
