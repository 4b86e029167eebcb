// What the `vfilter` element holds besides its GObject parts, shared by the files that make it:
// the element itself (gstvfilter.cpp), its properties (element_properties.cpp), its frames in
// flight (element_in_flight.cpp) and, with CUDA, its side on GStreamer's CUDA memory
// (element_cuda.cpp). Only for those files.
#pragma once

#include <gst/video/video.h>

#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "gst/element_engine.hpp"
#include "gst/element_in_flight.hpp"
#include "gst/gstvfilter.hpp"

#ifdef VF_GST_CUDA
#include "gst/cuda_memory.hpp"
#endif

GST_DEBUG_CATEGORY_EXTERN(gst_vfilter_debug);
#define GST_CAT_DEFAULT gst_vfilter_debug

namespace vf::element {

// Settings are read and written under the object lock, the engine only on the streaming thread
// (and set_filter, which it makes safe).
struct State {
    ElementSettings settings;
    std::string refused;  // why the filter string given before start cannot run (start fails)
    std::unique_ptr<ElementEngine> engine;
    std::mutex engine_mutex;  // the engine's replacement (set_info, stop) against set_filter and queries
    BuffersInFlight in_flight;  // system memory on the GPU (element_in_flight.hpp)
    // The allocator of the page-locked buffers offered upstream, over the engine's store (which it
    // holds); released at stop.
    GstAllocator* page_locked_allocator = nullptr;
    const PageLockedStore* page_locked_store = nullptr;
#ifdef VF_GST_CUDA
    // CUDA memory (cuda_memory.hpp). Guarded by the object lock: queries come from any thread.
    std::unique_ptr<PrimaryCudaContext> own_cuda;  // offered to the pipeline; kept until finalize
    GstCudaContext* pipeline_cuda = nullptr;       // the context the pipeline shares
    bool cuda_caps = false;                        // the negotiated caps are CUDA memory
    bool in_place = false;                         // ... in vfilter's context: read in place
    GstVideoInfo info;
#endif
};

}  // namespace vf::element

struct _GstVfilter {
    GstVideoFilter parent;
    vf::element::State* state;
};

namespace vf::element {

inline State& state_of(GstVfilter* self) { return *self->state; }

// Posts `e` on the bus as the element's error: a usage error as SETTINGS, a device error as
// RESOURCE, anything else as STREAM.
void post_error(GstVfilter* self, const std::exception& e);

}  // namespace vf::element
