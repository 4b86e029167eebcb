#include "gst/page_locked_pool.hpp"

#include <gst/video/gstvideometa.h>
#include <gst/video/gstvideopool.h>

#include <utility>

namespace {

struct VfPageLockedAllocator {
    GstAllocator parent;
    std::shared_ptr<vf::PageLockedStore>* store;
};
struct VfPageLockedAllocatorClass {
    GstAllocatorClass parent_class;
};

// A memory holds its block (and through it the store) until freed; shares hold the block too.
struct PageLockedMemory {
    GstMemory memory;
    AVBufferRef* block;
};

GType vf_page_locked_allocator_get_type();
G_DEFINE_TYPE(VfPageLockedAllocator, vf_page_locked_allocator, GST_TYPE_ALLOCATOR)

GstMemory* new_memory(GstAllocator* allocator, GstMemory* parent, AVBufferRef* block, GstMemoryFlags flags, gsize maxsize, gsize align,
                      gsize offset, gsize size) {
    auto* m = g_new0(PageLockedMemory, 1);
    gst_memory_init(GST_MEMORY_CAST(m), flags, allocator, parent, maxsize, align, offset, size);
    m->block = block;
    return GST_MEMORY_CAST(m);
}

// The store's blocks are page-aligned where pinned and FFmpeg-aligned otherwise: enough for the
// alignments video pools ask.
GstMemory* page_locked_alloc(GstAllocator* allocator, gsize size, GstAllocationParams* params) {
    auto* self = reinterpret_cast<VfPageLockedAllocator*>(allocator);
    const gsize maxsize = size + params->prefix + params->padding;
    AVBufferRef* block = (*self->store)->alloc(maxsize);  // zeroed
    if (!block) return nullptr;
    const auto flags = static_cast<GstMemoryFlags>(params->flags | GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED);
    return new_memory(allocator, nullptr, block, flags, maxsize, params->align, params->prefix, size);
}

void page_locked_free(GstAllocator*, GstMemory* memory) {
    auto* m = reinterpret_cast<PageLockedMemory*>(memory);
    av_buffer_unref(&m->block);
    g_free(m);
}

gpointer page_locked_map(GstMemory* memory, gsize, GstMapFlags) { return reinterpret_cast<PageLockedMemory*>(memory)->block->data; }

void page_locked_unmap(GstMemory*) {}

GstMemory* page_locked_share(GstMemory* memory, gssize offset, gssize size) {
    auto* m = reinterpret_cast<PageLockedMemory*>(memory);
    GstMemory* parent = memory->parent ? memory->parent : memory;
    if (size == -1) size = static_cast<gssize>(memory->size) - offset;
    const auto flags = static_cast<GstMemoryFlags>(GST_MINI_OBJECT_FLAGS(parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY);
    return new_memory(memory->allocator, parent, av_buffer_ref(m->block), flags, memory->maxsize, memory->align,
                      memory->offset + static_cast<gsize>(offset), static_cast<gsize>(size));
}

void vf_page_locked_allocator_finalize(GObject* object) {
    auto* self = reinterpret_cast<VfPageLockedAllocator*>(object);
    delete self->store;
    self->store = nullptr;
    G_OBJECT_CLASS(vf_page_locked_allocator_parent_class)->finalize(object);
}

void vf_page_locked_allocator_class_init(VfPageLockedAllocatorClass* klass) {
    GST_ALLOCATOR_CLASS(klass)->alloc = page_locked_alloc;
    GST_ALLOCATOR_CLASS(klass)->free = page_locked_free;
    G_OBJECT_CLASS(klass)->finalize = vf_page_locked_allocator_finalize;
}

void vf_page_locked_allocator_init(VfPageLockedAllocator* self) {
    GstAllocator* allocator = GST_ALLOCATOR_CAST(self);
    allocator->mem_type = "VfilterPageLocked";
    allocator->mem_map = page_locked_map;
    allocator->mem_unmap = page_locked_unmap;
    allocator->mem_share = page_locked_share;
    self->store = nullptr;
}

}  // namespace

namespace vf::element {

GstAllocator* page_locked_allocator_new(std::shared_ptr<PageLockedStore> store) {
    auto* self = static_cast<VfPageLockedAllocator*>(g_object_new(vf_page_locked_allocator_get_type(), nullptr));
    gst_object_ref_sink(self);
    self->store = new std::shared_ptr<PageLockedStore>(std::move(store));
    return GST_ALLOCATOR_CAST(self);
}

bool is_page_locked_memory(GstMemory* memory) {
    return memory && memory->allocator && G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, vf_page_locked_allocator_get_type());
}

GstBufferPool* page_locked_pool_new(GstAllocator* allocator, GstCaps* caps, guint size, guint min_buffers) {
    GstBufferPool* pool = gst_video_buffer_pool_new();
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min_buffers, 0);
    gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}

}  // namespace vf::element
