// Where host frame buffers come from. Page-locked ("pinned") memory lets the GPU copy a frame
// straight from the buffer the decoder wrote (and into the one the encoder reads) with DMA;
// from ordinary pageable memory the CUDA driver first copies through a staging buffer, one hidden
// host copy per transfer. vfilter asks for pinned buffers whenever frames go to the GPU.
#pragma once

#include <cstddef>

extern "C" {
#include <libavutil/buffer.h>
}

namespace vf {

// Allocates one zeroed buffer (the signature av_buffer_pool_init takes).
using BufferAllocator = AVBufferRef* (*)(size_t size);

// Page-locked buffers. One process-wide store keeps the blocks freed buffers leave (up to 1 GiB,
// by size) for the next buffer of that size, so the streams of one process share their
// page-locked memory as they come and go; beyond that, cudaFreeHost. A buffer is zeroed either
// way. Without CUDA in the build, or when the driver refuses (too much pinned memory), ordinary
// buffers, said once in the log.
AVBufferRef* pinned_buffer_alloc(size_t size);
// Bytes of page-locked blocks kept for reuse now (0 without CUDA).
size_t pinned_bytes_kept();
// Page-locked host memory of the whole process: every block pinned and not yet freed (in frames
// or kept), and of those the ones kept for reuse. In /metrics, since it is resident memory that
// no heap profiler sees.
struct PinnedHostBytes {
    size_t pinned = 0;
    size_t kept = 0;
};
PinnedHostBytes pinned_host_bytes();

// Device memory (cudaMalloc, on the calling thread's current GPU) for frames that stay on the GPU,
// freed with cudaFree; nullptr (an allocation failure) without CUDA in the build or when the GPU
// is out of memory.
AVBufferRef* device_buffer_alloc(size_t size);

// True when `p` points into page-locked host memory known to CUDA (false without CUDA).
bool is_pinned(const void* p);

}  // namespace vf
