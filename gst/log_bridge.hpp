// vfilter's log (spdlog, and FFmpeg's through it) inside a GStreamer application: into GStreamer's
// debug log under the `vfilter` category (GST_DEBUG=vfilter:4 shows it), not onto stderr.
#pragma once

namespace vf {

void log_to_gstreamer();

}  // namespace vf
