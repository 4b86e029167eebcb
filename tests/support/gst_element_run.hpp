// What the `vfilter` element's test programs (tests/gst/) feed the element and how they run it:
// random frames in GStreamer buffers, an appsrc or a live source through the element into an
// appsink, and the latency a live pipeline ends up with.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vf::test {

// Fills a mapped frame (padding included) with random samples in its format's range: 10-bit ones
// below 1024, P010's in its high bits.
void fill_random(GstVideoFrame& frame, uint32_t seed);

// `count` frames of `info` (GStreamer's default layout) of random samples, frame n from seed
// `first_seed` + n, its PTS n frame `duration`s after `offset`.
std::vector<GstBuffer*> random_frames(const GstVideoInfo& info, int count, uint32_t first_seed, GstClockTime duration,
                                      GstClockTime offset = 0);

// What a test is given of each buffer the element sends on, in order.
using BufferOut = std::function<void(GstBuffer*)>;

// appsrc ! vfilter <properties> ! appsink with `caps` on the appsrc: a copy of every frame pushed
// (the element filters in place), then end of stream; every buffer out goes to `each` until the
// end of stream, or 20 s without one. `before_play` sees the pipeline first (a context to share).
// Whether the end of stream came.
bool run_element(GstCaps* caps, const std::vector<GstBuffer*>& frames, const std::string& properties, const BufferOut& each,
                 const std::function<void(GstElement*)>& before_play = nullptr);

// `source` (a live source and its caps) ! vfilter name=f <properties> ! appsink: `probe` sees each
// buffer on its way into the element, `each` every buffer out until the end (or 20 s).
void run_source_through_element(const std::string& source, const std::string& properties, GstPadProbeCallback probe, void* probe_data,
                                const BufferOut& each);

// The latency a live pipeline ends up with: videotestsrc at 25 fps, width x height I420, through
// `element` into a synced fakesink; the pipeline's LATENCY query (answered by the sink once its
// first buffer came), or GST_CLOCK_TIME_NONE when it has none within 5 s.
GstClockTime live_latency(const std::string& element, int width, int height);

}  // namespace vf::test
