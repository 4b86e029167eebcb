#include "gst/gstvfilter.hpp"

#include <gst/video/video.h>

#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "gst/element_engine.hpp"
#include "gst/video_frames.hpp"

#ifdef VF_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gst/cuda_memory.hpp"
#include "kernels/cuda_backend.hpp"
#endif

GST_DEBUG_CATEGORY_STATIC(gst_vfilter_debug);
#define GST_CAT_DEFAULT gst_vfilter_debug

namespace {

enum { PROP_0, PROP_FILTER, PROP_COMPAT, PROP_DEVICE, PROP_GPU_ID, PROP_KERNEL };

// What the element holds besides its GObject parts; settings are read and written under the
// object lock, the engine only on the streaming thread (and set_filter, which it makes safe).
struct State {
    vf::ElementSettings settings;
    std::string refused;  // why the filter string given before start cannot run (start fails)
    std::unique_ptr<vf::ElementEngine> engine;
    std::mutex engine_mutex;  // the engine's replacement (set_info, stop) against set_filter
#ifdef VF_GST_CUDA
    // CUDA memory (cuda_memory.hpp). Guarded by the object lock: queries come from any thread.
    std::unique_ptr<vf::PrimaryCudaContext> own_cuda;  // offered to the pipeline; kept until finalize
    GstCudaContext* pipeline_cuda = nullptr;           // the context the pipeline shares
    bool cuda_caps = false;                            // the negotiated caps are CUDA memory
    bool in_place = false;                             // ... in vfilter's context: read in place
    GstVideoInfo info;
#endif
};

GType compat_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {static_cast<gint>(vf::FilterDefaults::Vfilter), "vfilter's defaults (a bare sobel edges luma and greys the chroma)", "vfilter"},
        {static_cast<gint>(vf::FilterDefaults::Ffmpeg), "FFmpeg's defaults: the same string gives the ffmpeg command's output", "ffmpeg"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstVfilterCompat", values));
    return type;
}

GType device_type() {
    static GType type = 0;
    static const GEnumValue values[] = {{static_cast<gint>(vf::DeviceChoice::Auto), "the GPU when one answers, else the CPU", "auto"},
                                        {static_cast<gint>(vf::DeviceChoice::Cpu), "the CPU", "cpu"},
                                        {static_cast<gint>(vf::DeviceChoice::Cuda), "the GPU (CUDA); an error without one", "cuda"},
                                        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstVfilterDevice", values));
    return type;
}

}  // namespace

struct _GstVfilter {
    GstVideoFilter parent;
    State* state;
};

G_DEFINE_TYPE(GstVfilter, gst_vfilter, GST_TYPE_VIDEO_FILTER)

namespace {

State& state_of(GstVfilter* self) { return *self->state; }

void post_error(GstVfilter* self, const std::exception& e) {
    const auto* err = dynamic_cast<const vf::Error*>(&e);
    if (err && err->category() == vf::ErrorCategory::Usage)
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", e.what()), (nullptr));
    else if (err && err->category() == vf::ErrorCategory::Device)
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("%s", e.what()), (nullptr));
    else
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", e.what()), (nullptr));
}

// A new filter string: checked at once; refused (the previous one kept) with its reason.
void set_filter(GstVfilter* self, const std::string& text) {
    State& s = state_of(self);
    vf::FilterDefaults compat;
    vf::KernelChoice kernel;
    {
        GST_OBJECT_LOCK(self);
        compat = s.settings.compat;
        kernel = s.settings.kernel;
        GST_OBJECT_UNLOCK(self);
    }
    std::string why;
    bool running = false;
    vf::FilterChain compiled;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);  // not held while posting: a bus handler may set it again
        running = s.engine != nullptr;
        try {
            compiled = vf::compile_chain(text);  // the property's one parse: the engine plans from it
            vf::ElementEngine::check_filter(compiled, compat, kernel);
            if (running) {
                s.engine->set_filter(compiled);  // throws when it cannot run on these frames
                gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), s.engine->identity());
                GST_INFO_OBJECT(self, "filter changed to '%s' from the next buffer", text.c_str());
            }
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    GST_OBJECT_LOCK(self);
    if (why.empty()) {
        s.settings.filter = compiled;
        s.refused.clear();
    } else if (!running) {
        s.refused = why;  // start fails with it unless a good string comes first
    }
    GST_OBJECT_UNLOCK(self);
    if (!why.empty()) {
        GST_WARNING_OBJECT(self, "filter '%s' refused: %s", text.c_str(), why.c_str());
        if (running)
            GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", why.c_str()), ("filter '%s' refused; the previous one goes on", text.c_str()));
    }
}

#ifdef VF_GST_CUDA
GstBaseTransformClass* video_filter_class = nullptr;  // GstVideoFilter's transform_ip, for system memory

// Makes the context vfilter offers (the GPU's primary one) and takes it as the pipeline's when
// the pipeline has none yet. False where there is no usable GPU (or device=cpu).
bool ensure_own_cuda(GstVfilter* self) {
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    const bool have = s.own_cuda != nullptr;
    const int gpu = s.settings.gpu_id;
    const bool cpu = s.settings.device == vf::DeviceChoice::Cpu;
    GST_OBJECT_UNLOCK(self);
    if (have) return true;
    if (cpu || !vf::gst_cuda_usable()) return false;
    std::unique_ptr<vf::PrimaryCudaContext> made;
    try {
        std::string why;
        if (!vf::cuda_device_available(&why)) return false;
        made = std::make_unique<vf::PrimaryCudaContext>(gpu);
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
    GST_ELEMENT_CLASS(gst_vfilter_parent_class)->set_context(element, context);
}

gboolean gst_vfilter_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query) {
    GstVfilter* self = GST_VFILTER(trans);
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
        // Asked first, vfilter answers with the GPU's primary context: then every element of the
        // pipeline allocates where vfilter's kernels can read in place.
        ensure_own_cuda(self);
        if (gst_cuda_handle_context_query(GST_ELEMENT(self), query, state_of(self).pipeline_cuda)) return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_vfilter_parent_class)->query(trans, direction, query);
}

gboolean gst_vfilter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstCapsFeatures* features = caps ? gst_caps_get_features(caps, 0) : nullptr;
    if (!features || !gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY) || !s.pipeline_cuda)
        return GST_BASE_TRANSFORM_CLASS(gst_vfilter_parent_class)->propose_allocation(trans, decide_query, query);
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
        vf::AvFramePtr out = s.engine->filter(vf::frame_over(frame));
        if (s.in_place) vf::copy_frame_on_gpu(*out, frame);
        else vf::copy_into(*out, frame);
    } catch (const std::exception& e) {
        post_error(self, e);
        r = GST_FLOW_ERROR;
    }
    gst_video_frame_unmap(&frame);
    return r;
}
#endif

void gst_vfilter_set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    GstVfilter* self = GST_VFILTER(object);
    State& s = state_of(self);
    switch (id) {
    case PROP_FILTER: {
        const gchar* text = g_value_get_string(value);
        set_filter(self, text ? text : "identity");
        break;
    }
    case PROP_COMPAT:
        GST_OBJECT_LOCK(self);
        s.settings.compat = static_cast<vf::FilterDefaults>(g_value_get_enum(value));
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_DEVICE:
        GST_OBJECT_LOCK(self);
        s.settings.device = static_cast<vf::DeviceChoice>(g_value_get_enum(value));
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_GPU_ID:
        GST_OBJECT_LOCK(self);
        s.settings.gpu_id = g_value_get_int(value);
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_KERNEL: {
        const gchar* text = g_value_get_string(value);
        vf::KernelChoice choice;
        if (!vf::parse_kernel_choice(text ? text : "auto", &choice)) {
            GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("kernel '%s': use one of %s", text, vf::kernel_choices().c_str()), (nullptr));
            break;
        }
        GST_OBJECT_LOCK(self);
        s.settings.kernel = choice;
        GST_OBJECT_UNLOCK(self);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void gst_vfilter_get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    GstVfilter* self = GST_VFILTER(object);
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_FILTER: g_value_set_string(value, s.settings.filter.text().c_str()); break;
    case PROP_COMPAT: g_value_set_enum(value, static_cast<gint>(s.settings.compat)); break;
    case PROP_DEVICE: g_value_set_enum(value, static_cast<gint>(s.settings.device)); break;
    case PROP_GPU_ID: g_value_set_int(value, s.settings.gpu_id); break;
    case PROP_KERNEL: g_value_set_string(value, vf::kernel_choice_name(s.settings.kernel).c_str()); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
    GST_OBJECT_UNLOCK(self);
}

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
    State& cs = state_of(self);
    GST_OBJECT_LOCK(self);
    const bool had = cs.pipeline_cuda != nullptr;
    GST_OBJECT_UNLOCK(self);
    if (!had && ensure_own_cuda(self))
        gst_element_post_message(GST_ELEMENT(self), gst_message_new_have_context(GST_OBJECT(self), gst_context_new_cuda_context(cs.pipeline_cuda)));
#endif
    return TRUE;
}

gboolean gst_vfilter_stop(GstBaseTransform* trans) {
    State& s = state_of(GST_VFILTER(trans));
    std::unique_ptr<vf::ElementEngine> engine;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);
        engine = std::move(s.engine);  // its GPU state is freed here, outside the lock
    }
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
    GstCapsFeatures* features = gst_caps_get_features(in_caps, 0);
    s.cuda_caps = features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    s.info = *in_info;
    if (s.cuda_caps) {
        ensure_own_cuda(self);
        GST_OBJECT_LOCK(self);
        s.in_place = s.own_cuda && s.own_cuda->same(s.pipeline_cuda);
        GST_OBJECT_UNLOCK(self);
        gpu_memory = s.in_place;
        if (!s.in_place)
            GST_WARNING_OBJECT(self, "the pipeline's CUDA context is not the GPU's primary one (a neighbour made its own): "
                                     "buffers go through host memory. Put vfilter where it is asked for the context first, or give "
                                     "the pipeline a GstCudaContext that wraps the primary context");
    }
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
        std::lock_guard<std::mutex> lock(s.engine_mutex);
        gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), engine->identity());
        s.engine = std::move(engine);
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

    object_class->set_property = gst_vfilter_set_property;
    object_class->get_property = gst_vfilter_get_property;
    object_class->finalize = gst_vfilter_finalize;

    const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    const auto flags_ready = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_READY);
    const auto flags_playing = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        object_class, PROP_FILTER,
        g_param_spec_string("filter", "Filter",
                            "The filter chain, as vfilter's -f takes it (FFmpeg's syntax: \"sobel\", \"gaussian=sigma=2,unsharp\"; "
                            "vfilter --list-filters lists them). May change while playing: it applies from the next buffer. "
                            "A string that cannot run is refused with its reason (a warning while playing, the previous "
                            "filter going on; an error at start)",
                            "identity", flags_playing));
    g_object_class_install_property(object_class, PROP_COMPAT,
                                    g_param_spec_enum("compat", "Compat", "Whose defaults the filter string gets (vfilter's --compat)",
                                                      compat_type(), static_cast<gint>(vf::FilterDefaults::Vfilter), flags_ready));
    g_object_class_install_property(object_class, PROP_DEVICE,
                                    g_param_spec_enum("device", "Device", "Where the filters run (vfilter's --device)", device_type(),
                                                      static_cast<gint>(vf::DeviceChoice::Auto), flags_ready));
    g_object_class_install_property(object_class, PROP_GPU_ID,
                                    g_param_spec_int("gpu-id", "GPU", "The CUDA device the filters run on (vfilter's --gpu)", 0, 63, 0,
                                                     flags_ready));
    g_object_class_install_property(
        object_class, PROP_KERNEL,
        g_param_spec_string("kernel", "Kernel",
                            "auto, a kernel family or a row of the GPU dispatch table (vfilter's --kernel; vfilter --list-kernels)",
                            "auto", flags_ready));

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
    video_filter_class = GST_BASE_TRANSFORM_CLASS(gst_vfilter_parent_class);
    transform_class->transform_ip = gst_vfilter_transform_ip;
    transform_class->query = gst_vfilter_query;
    transform_class->propose_allocation = gst_vfilter_propose_allocation;
    element_class->set_context = gst_vfilter_set_context;
#endif
    video_class->set_info = gst_vfilter_set_info;
    video_class->transform_frame_ip = gst_vfilter_transform_frame_ip;
    GST_DEBUG_CATEGORY_INIT(gst_vfilter_debug, "vfilter", 0, "vfilter's filters");
}

static void gst_vfilter_init(GstVfilter* self) {
    self->state = new State();
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

gboolean gst_vfilter_register(GstPlugin* plugin) { return gst_element_register(plugin, "vfilter", GST_RANK_NONE, GST_TYPE_VFILTER); }
