// The GStreamer plugin that holds the `vfilter` element (docs/gstreamer.md): built where
// GStreamer's development packages are, installed into GStreamer's plugin folder.
#include <gst/gst.h>

#include "gst/gstvfilter.hpp"
#include "gst/log_bridge.hpp"

#ifndef VF_VERSION
#define VF_VERSION "0.1.0"
#endif
#define PACKAGE "vfilter"

static gboolean plugin_init(GstPlugin* plugin) {
    vf::log_to_gstreamer();
    return gst_vfilter_register(plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, vfilter, "vfilter's filters on raw video, on the GPU or the CPU", plugin_init,
                  VF_VERSION, "unknown", "vfilter", "vfilter (built from its repository)")
