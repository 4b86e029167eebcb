#include "gst/element_cuda.hpp"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <exception>
#include <memory>
#include <string>

#include "gst/element_state.hpp"
#include "gst/video_frames.hpp"
#include "kernels/cuda_backend.hpp"

namespace vf::element {

namespace {

gpointer parent_class = nullptr;                     // the element's, for chaining up
GstBaseTransformClass* video_filter_class = nullptr;  // GstVideoFilter's transform_ip, for system memory

// Makes the context vfilter offers (the GPU's primary one) and takes it as the pipeline's when
// the pipeline has none yet. False where there is no usable GPU (or device=cpu).
bool ensure_own_cuda(GstVfilter* self) {
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    const bool have = s.own_cuda != nullptr;
    const int gpu = s.settings.gpu_id;
    const bool cpu = s.settings.device == DeviceChoice::Cpu;
    GST_OBJECT_UNLOCK(self);
    if (have) return true;
    if (cpu || !gst_cuda_usable()) return false;
    std::unique_ptr<PrimaryCudaContext> made;
    try {
        std::string why;
        if (!cuda_device_available(&why)) return false;
        made = std::make_unique<PrimaryCudaContext>(gpu);
    } catch (const std::exception& e) {
        GST_INFO_OBJECT(self, "no CUDA context: %s", e.what());
        return false;
    }
    GST_OBJECT_LOCK(self);
    if (!s.own_cuda) s.own_cuda = std::move(made);
    if (!s.pipeline_cuda) s.pipeline_cuda = static_cast<GstCudaContext*>(gst_object_ref(s.own_cuda->get()));
    GST_OBJECT_UNLOCK(self);
    return true;
}

void gst_vfilter_set_context(GstElement* element, GstContext* context) {
    GstVfilter* self = GST_VFILTER(element);
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    const int gpu = s.settings.gpu_id;
    GST_OBJECT_UNLOCK(self);
    gst_cuda_handle_set_context(element, context, gpu, &s.pipeline_cuda);
    GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

gboolean gst_vfilter_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query) {
    GstVfilter* self = GST_VFILTER(trans);
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
        // Asked first, vfilter answers with the GPU's primary context: then every element of the
        // pipeline allocates where vfilter's kernels can read in place.
        ensure_own_cuda(self);
        if (gst_cuda_handle_context_query(GST_ELEMENT(self), query, state_of(self).pipeline_cuda)) return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(parent_class)->query(trans, direction, query);
}

gboolean gst_vfilter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstCapsFeatures* features = caps ? gst_caps_get_features(caps, 0) : nullptr;
    if (!features || !gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY) || !s.pipeline_cuda)
        return GST_BASE_TRANSFORM_CLASS(parent_class)->propose_allocation(trans, decide_query, query);
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return FALSE;
    if (gst_query_get_n_allocation_pools(query) == 0) {
        GstBufferPool* pool = gst_cuda_buffer_pool_new(s.pipeline_cuda);
        GstStructure* config = gst_buffer_pool_get_config(pool);
        gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        // A pool that adjusts the config (CUDA's pitch) says FALSE once; the adjusted one is taken.
        if (!gst_buffer_pool_set_config(pool, config) && !gst_buffer_pool_set_config(pool, gst_buffer_pool_get_config(pool))) {
            gst_object_unref(pool);
            return FALSE;
        }
        gst_query_add_allocation_pool(query, pool, GST_VIDEO_INFO_SIZE(&info), 0, 0);
        gst_object_unref(pool);
    }
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    return TRUE;
}

// CUDA memory: in vfilter's context mapped for CUDA (device addresses, no copy to the host) and
// filtered there; in another context through a system map (a copy through host memory). The
// planes lie where the buffer's video meta says, or, without one, where GStreamer's CUDA
// allocator put them (its pitch), never at the default strides. System memory goes through
// GstVideoFilter's own mapping.
GstFlowReturn gst_vfilter_transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    if (!s.cuda_caps) return video_filter_class->transform_ip(trans, buffer);
    GstVideoInfo* info = &s.info;
    GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
    if (!gst_buffer_get_video_meta(buffer) && gst_is_cuda_memory(memory)) info = &GST_CUDA_MEMORY_CAST(memory)->info;
    const auto flags = static_cast<GstMapFlags>(s.in_place ? GST_MAP_READWRITE | GST_MAP_CUDA : GST_MAP_READWRITE);
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, info, buffer, flags)) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map a CUDA buffer"), (nullptr));
        return GST_FLOW_ERROR;
    }
    GstFlowReturn r = GST_FLOW_OK;
    try {
        AvFramePtr out = s.engine->filter(frame_over(frame));
        if (s.in_place) copy_frame_on_gpu(*out, frame);
        else copy_into(*out, frame);
    } catch (const std::exception& e) {
        post_error(self, e);
        r = GST_FLOW_ERROR;
    }
    gst_video_frame_unmap(&frame);
    return r;
}

}  // namespace

void install_cuda_memory(GstElementClass* element_class, GstBaseTransformClass* transform_class, gpointer element_parent_class) {
    parent_class = element_parent_class;
    video_filter_class = GST_BASE_TRANSFORM_CLASS(element_parent_class);
    transform_class->transform_ip = gst_vfilter_transform_ip;
    transform_class->query = gst_vfilter_query;
    transform_class->propose_allocation = gst_vfilter_propose_allocation;
    element_class->set_context = gst_vfilter_set_context;
}

void share_cuda_context(GstVfilter* self) {
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    const bool had = s.pipeline_cuda != nullptr;
    GST_OBJECT_UNLOCK(self);
    if (!had && ensure_own_cuda(self))
        gst_element_post_message(GST_ELEMENT(self), gst_message_new_have_context(GST_OBJECT(self), gst_context_new_cuda_context(s.pipeline_cuda)));
}

bool negotiate_cuda_memory(GstVfilter* self, GstCaps* in_caps, const GstVideoInfo* in_info) {
    State& s = state_of(self);
    GstCapsFeatures* features = gst_caps_get_features(in_caps, 0);
    s.cuda_caps = features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    s.info = *in_info;
    if (!s.cuda_caps) return false;
    ensure_own_cuda(self);
    GST_OBJECT_LOCK(self);
    s.in_place = s.own_cuda && s.own_cuda->same(s.pipeline_cuda);
    GST_OBJECT_UNLOCK(self);
    if (!s.in_place)
        GST_WARNING_OBJECT(self, "the pipeline's CUDA context is not the GPU's primary one (a neighbour made its own): "
                                 "buffers go through host memory. Put vfilter where it is asked for the context first, or give "
                                 "the pipeline a GstCudaContext that wraps the primary context");
    return s.in_place;
}

}  // namespace vf::element
