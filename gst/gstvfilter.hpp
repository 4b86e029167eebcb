// The `vfilter` GStreamer element: vfilter's filters on raw video inside any GStreamer pipeline
// (docs/gstreamer.md). A GstVideoFilter that filters each buffer in place through ElementEngine.
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_VFILTER (gst_vfilter_get_type())
G_DECLARE_FINAL_TYPE(GstVfilter, gst_vfilter, GST, VFILTER, GstVideoFilter)

// Registers the element with `plugin` (the plugin's init, and tests that register it statically).
gboolean gst_vfilter_register(GstPlugin* plugin);

G_END_DECLS
