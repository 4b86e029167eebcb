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

// Page-locked buffers freed with cudaFreeHost. Without CUDA in the build, or when the driver
// refuses (too much pinned memory), ordinary buffers, said once in the log.
AVBufferRef* pinned_buffer_alloc(size_t size);

// Device memory (cudaMalloc, on the calling thread's current GPU) for frames that stay on the GPU,
// freed with cudaFree; nullptr (an allocation failure) without CUDA in the build or when the GPU
// is out of memory.
AVBufferRef* device_buffer_alloc(size_t size);

// True when `p` points into page-locked host memory known to CUDA (false without CUDA).
bool is_pinned(const void* p);

}  // namespace vf
