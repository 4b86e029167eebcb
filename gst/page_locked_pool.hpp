// Page-locked ("pinned") buffers the element offers upstream when it filters system memory on the
// GPU: a source or decoder that takes them writes each frame straight into memory the GPU copies
// by DMA, with no staging copy by the driver (media/host_memory.hpp says why that matters). The
// memory comes from the page-locked store of the element's GPU runtime; every memory holds the
// store, so it lives until the last buffer is gone and nothing of it is process-wide.
#pragma once

#include <gst/gst.h>

#include <memory>

#include "media/host_memory.hpp"

namespace vf::element {

// A GstAllocator (a full reference) whose memory comes from `store`.
GstAllocator* page_locked_allocator_new(std::shared_ptr<PageLockedStore> store);
// True for memory of such an allocator.
bool is_page_locked_memory(GstMemory* memory);
// A video buffer pool (a full reference) for `caps`, whose buffers are `allocator`'s memory with
// video meta; at least `min_buffers` of them.
GstBufferPool* page_locked_pool_new(GstAllocator* allocator, GstCaps* caps, guint size, guint min_buffers);

}  // namespace vf::element
