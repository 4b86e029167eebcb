// The element: its GObject type, its pads and caps, start and stop, negotiation (set_info) and
// the filtering of system-memory buffers. Its properties live in element_properties.cpp, its
// side on GStreamer's CUDA memory in element_cuda.cpp, what they share in element_state.hpp.
#include "gst/gstvfilter.hpp"

#include <gst/video/video.h>

#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "common/error.hpp"
#include "gst/element_cuda.hpp"
#include "gst/element_properties.hpp"
#include "gst/element_state.hpp"
#include "gst/video_frames.hpp"

GST_DEBUG_CATEGORY(gst_vfilter_debug);

G_DEFINE_TYPE(GstVfilter, gst_vfilter, GST_TYPE_VIDEO_FILTER)

namespace vf::element {

void post_error(GstVfilter* self, const std::exception& e) {
    const auto* err = dynamic_cast<const Error*>(&e);
    if (err && err->category() == ErrorCategory::Usage)
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", e.what()), (nullptr));
    else if (err && err->category() == ErrorCategory::Device)
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("%s", e.what()), (nullptr));
    else
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", e.what()), (nullptr));
}

}  // namespace vf::element

namespace {

using vf::element::post_error;
using vf::element::State;
using vf::element::state_of;

gboolean gst_vfilter_start(GstBaseTransform* trans) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    const std::string refused = s.refused;
    GST_OBJECT_UNLOCK(self);
    if (!refused.empty()) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", refused.c_str()), (nullptr));
        return FALSE;
    }
#ifdef VF_GST_CUDA
    // The pipeline's CUDA context: a neighbour's or the application's where it gave one, else
    // vfilter's own, made known to the pipeline so that elements asking later share it.
    vf::element::share_cuda_context(self);
#endif
    return TRUE;
}

gboolean gst_vfilter_stop(GstBaseTransform* trans) {
    State& s = state_of(GST_VFILTER(trans));
    std::unique_ptr<vf::ElementEngine> engine;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);
        engine = std::move(s.engine);
    }
    engine.reset();  // its GPU state is freed here, outside the lock, once the frames in flight are done
    vf::element::drop_in_flight(GST_VFILTER(trans));
    return TRUE;
}

gboolean gst_vfilter_set_info(GstVideoFilter* filter, GstCaps* in_caps, GstVideoInfo* in_info, GstCaps*, GstVideoInfo* out_info) {
    GstVfilter* self = GST_VFILTER(filter);
    State& s = state_of(self);
    const AVPixelFormat format = vf::av_format_of(GST_VIDEO_INFO_FORMAT(in_info));
    if (format == AV_PIX_FMT_NONE || GST_VIDEO_INFO_FORMAT(out_info) != GST_VIDEO_INFO_FORMAT(in_info) ||
        GST_VIDEO_INFO_WIDTH(out_info) != GST_VIDEO_INFO_WIDTH(in_info) || GST_VIDEO_INFO_HEIGHT(out_info) != GST_VIDEO_INFO_HEIGHT(in_info)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("vfilter keeps the format and size of its input"), (nullptr));
        return FALSE;
    }
    bool gpu_memory = false;
#ifdef VF_GST_CUDA
    gpu_memory = vf::element::negotiate_cuda_memory(self, in_caps, in_info);
#else
    (void)in_caps;
#endif
    GST_OBJECT_LOCK(self);
    const vf::ElementSettings settings = s.settings;
    GST_OBJECT_UNLOCK(self);
    try {
        auto engine = std::make_unique<vf::ElementEngine>(settings, GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info), format,
                                                          gpu_memory);
        GST_INFO_OBJECT(self, "%dx%d %s: %s", GST_VIDEO_INFO_WIDTH(in_info), GST_VIDEO_INFO_HEIGHT(in_info),
                        GST_VIDEO_INFO_NAME(in_info), engine->describe().c_str());
        const bool in_flight_before = s.engine && s.engine->frames_in_flight() > 1;
        vf::element::finish_in_flight(self);  // with the engine they started on
        {
            std::lock_guard<std::mutex> lock(s.engine_mutex);
            gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), engine->identity());
            s.engine = std::move(engine);
        }
        if (in_flight_before != (s.engine->frames_in_flight() > 1)) vf::element::latency_may_have_changed(self);
    } catch (const std::exception& e) {
        post_error(self, e);
        return FALSE;
    }
    return TRUE;
}

GstFlowReturn gst_vfilter_transform_frame_ip(GstVideoFilter* filter, GstVideoFrame* frame) {
    GstVfilter* self = GST_VFILTER(filter);
    State& s = state_of(self);
    try {
        if (!s.engine) throw vf::Error(vf::ErrorCategory::Internal, "a buffer before the caps");
        vf::AvFramePtr out = s.engine->filter(vf::frame_over(*frame));
        vf::copy_into(*out, *frame);
    } catch (const std::exception& e) {
        post_error(self, e);
        return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
}

void gst_vfilter_finalize(GObject* object) {
    GstVfilter* self = GST_VFILTER(object);
#ifdef VF_GST_CUDA
    if (self->state->pipeline_cuda) gst_object_unref(self->state->pipeline_cuda);
#endif
    delete self->state;
    self->state = nullptr;
    G_OBJECT_CLASS(gst_vfilter_parent_class)->finalize(object);
}

}  // namespace

static void gst_vfilter_class_init(GstVfilterClass* klass) {
    GObjectClass* object_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass* transform_class = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass* video_class = GST_VIDEO_FILTER_CLASS(klass);

    object_class->set_property = vf::element::set_property;
    object_class->get_property = vf::element::get_property;
    object_class->finalize = gst_vfilter_finalize;
    vf::element::install_properties(object_class);

    std::string caps_text = "video/x-raw, format = (string) " + vf::element_formats() +
                            ", width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ], framerate = (fraction) [ 0, max ]";
#ifdef VF_GST_CUDA
    // CUDA memory first: negotiation prefers it where both neighbours offer it.
    if (vf::gst_cuda_usable()) caps_text = vf::element_cuda_caps(", framerate = (fraction) [ 0, max ]") + "; " + caps_text;
#endif
    GstCaps* caps = gst_caps_from_string(caps_text.c_str());
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    gst_element_class_set_static_metadata(
        element_class, "vfilter", "Filter/Effect/Video",
        "vfilter's convolution filters (sobel, gaussian, unsharp, avgblur, FFmpeg's convolution strings, ...) on the GPU or "
        "the CPU, byte for byte as the vfilter command filters",
        "vfilter developers");

    transform_class->start = gst_vfilter_start;
    transform_class->stop = gst_vfilter_stop;
    transform_class->passthrough_on_same_caps = FALSE;
#ifdef VF_GST_CUDA
    vf::element::install_cuda_memory(element_class, transform_class, gst_vfilter_parent_class);
#endif
    video_class->set_info = gst_vfilter_set_info;
    video_class->transform_frame_ip = gst_vfilter_transform_frame_ip;
    vf::element::install_frames_in_flight(transform_class);  // over the vfuncs above
    GST_DEBUG_CATEGORY_INIT(gst_vfilter_debug, "vfilter", 0, "vfilter's filters");
}

static void gst_vfilter_init(GstVfilter* self) {
    self->state = new vf::element::State();
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

gboolean gst_vfilter_register(GstPlugin* plugin) { return gst_element_register(plugin, "vfilter", GST_RANK_NONE, GST_TYPE_VFILTER); }
