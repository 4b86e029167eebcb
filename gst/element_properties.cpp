#include "gst/element_properties.hpp"

#include <exception>
#include <mutex>
#include <string>

#include "config/filter_registry.hpp"
#include "gst/element_state.hpp"

namespace vf::element {

namespace {

enum { PROP_0, PROP_FILTER, PROP_COMPAT, PROP_DEVICE, PROP_GPU_ID, PROP_KERNEL, PROP_FRAMES_IN_FLIGHT };

GType compat_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {static_cast<gint>(FilterDefaults::Vfilter), "vfilter's defaults (a bare sobel edges luma and greys the chroma)", "vfilter"},
        {static_cast<gint>(FilterDefaults::Ffmpeg), "FFmpeg's defaults: the same string gives the ffmpeg command's output", "ffmpeg"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstVfilterCompat", values));
    return type;
}

GType device_type() {
    static GType type = 0;
    static const GEnumValue values[] = {{static_cast<gint>(DeviceChoice::Auto), "the GPU when one answers, else the CPU", "auto"},
                                        {static_cast<gint>(DeviceChoice::Cpu), "the CPU", "cpu"},
                                        {static_cast<gint>(DeviceChoice::Cuda), "the GPU (CUDA); an error without one", "cuda"},
                                        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstVfilterDevice", values));
    return type;
}

// A new filter string: checked at once; refused (the previous one kept) with its reason.
void set_filter(GstVfilter* self, const std::string& text) {
    State& s = state_of(self);
    FilterDefaults compat;
    KernelChoice kernel;
    {
        GST_OBJECT_LOCK(self);
        compat = s.settings.compat;
        kernel = s.settings.kernel;
        GST_OBJECT_UNLOCK(self);
    }
    std::string why;
    bool running = false;
    FilterChain compiled;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);  // not held while posting: a bus handler may set it again
        running = s.engine != nullptr;
        try {
            compiled = compile_chain(text);  // the property's one parse: the engine plans from it
            ElementEngine::check_filter(compiled, compat, kernel);
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

}  // namespace

void install_properties(GObjectClass* object_class) {
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
                                                      compat_type(), static_cast<gint>(FilterDefaults::Vfilter), flags_ready));
    g_object_class_install_property(object_class, PROP_DEVICE,
                                    g_param_spec_enum("device", "Device", "Where the filters run (vfilter's --device)", device_type(),
                                                      static_cast<gint>(DeviceChoice::Auto), flags_ready));
    g_object_class_install_property(object_class, PROP_GPU_ID,
                                    g_param_spec_int("gpu-id", "GPU", "The CUDA device the filters run on (vfilter's --gpu)", 0, 63, 0,
                                                     flags_ready));
    g_object_class_install_property(
        object_class, PROP_KERNEL,
        g_param_spec_string("kernel", "Kernel",
                            "auto, a kernel family or a row of the GPU dispatch table (vfilter's --kernel; vfilter --list-kernels)",
                            "auto", flags_ready));
    g_object_class_install_property(
        object_class, PROP_FRAMES_IN_FLIGHT,
        g_param_spec_int("frames-in-flight", "Frames in flight",
                         "Buffers of system memory on the GPU at once: the uploads, kernels and downloads of that many overlap "
                         "on as many CUDA streams, as in the vfilter command's GPU stage. The element holds up to that many "
                         "buffers, which it adds to the pipeline's latency (that many frame durations, in the LATENCY query); "
                         "1 sends each buffer on before the next comes. Not used on the CPU or on CUDA memory",
                         1, 16, vf::kDefaultGpuStreams, flags_ready));
}

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
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
        s.settings.compat = static_cast<FilterDefaults>(g_value_get_enum(value));
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_DEVICE:
        GST_OBJECT_LOCK(self);
        s.settings.device = static_cast<DeviceChoice>(g_value_get_enum(value));
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_GPU_ID:
        GST_OBJECT_LOCK(self);
        s.settings.gpu_id = g_value_get_int(value);
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_FRAMES_IN_FLIGHT:
        GST_OBJECT_LOCK(self);
        s.settings.frames_in_flight = g_value_get_int(value);
        GST_OBJECT_UNLOCK(self);
        break;
    case PROP_KERNEL: {
        const gchar* text = g_value_get_string(value);
        KernelChoice choice;
        if (!parse_kernel_choice(text ? text : "auto", &choice)) {
            GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("kernel '%s': use one of %s", text, kernel_choices().c_str()), (nullptr));
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

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    GstVfilter* self = GST_VFILTER(object);
    State& s = state_of(self);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_FILTER: g_value_set_string(value, s.settings.filter.text().c_str()); break;
    case PROP_COMPAT: g_value_set_enum(value, static_cast<gint>(s.settings.compat)); break;
    case PROP_DEVICE: g_value_set_enum(value, static_cast<gint>(s.settings.device)); break;
    case PROP_GPU_ID: g_value_set_int(value, s.settings.gpu_id); break;
    case PROP_KERNEL: g_value_set_string(value, kernel_choice_name(s.settings.kernel).c_str()); break;
    case PROP_FRAMES_IN_FLIGHT: g_value_set_int(value, s.settings.frames_in_flight); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
    GST_OBJECT_UNLOCK(self);
}

}  // namespace vf::element
