// GStreamer's raw video as vfilter's frames: which GstVideoFormats the element takes (those whose
// planes vfilter filters natively), and a mapped GstVideoFrame seen as an AVFrame over the same
// memory (no copy), or written from one.
#pragma once

#include <gst/video/video.h>

#include <string>

#include "media/av_helpers.hpp"

namespace vf {

// The native format of `f` (packed RGB: its own, filtered as its planes), or AV_PIX_FMT_NONE for
// one the element does not take.
AVPixelFormat av_format_of(GstVideoFormat f);
// The element's formats, as a caps list: "{ I420, YV12, ... }".
std::string element_formats();
// The element's caps on GStreamer's CUDA memory: the formats GStreamer 1.22's CUDA memory holds
// (not GRAY8, not Y444_10LE; of packed RGB, the 4-byte RGBA, BGRA, RGBx and BGRx), and the three-plane 4:2:0 ones at even heights only (1.22 places
// their V plane after height / 2 chroma rows, rounded down: at odd heights U's last row and V's
// first are the same memory).
std::string element_cuda_caps(const std::string& size_fields);

// The mapped frame's planes in vfilter's order (Y, U, V, whatever the buffer's plane order: YV12
// included; NV12/P010: Y, UV) and their strides; the rest are null.
void plane_pointers(const GstVideoFrame& frame, uint8_t* data[4], int linesize[4]);
// An AVFrame whose planes are the mapped frame's (Y, U, V in that order whatever the buffer's
// plane order: YV12 included), its pts the buffer's PTS in nanoseconds (element_engine.hpp's kGstFrameTimeBase; none
// where the buffer has none) and no byte position. It refers to the buffer's memory: drop it
// before unmapping.
AvFramePtr frame_over(const GstVideoFrame& frame);
// Copies `src` (of the same size and format, or packed RGB's planes) into the mapped frame.
void copy_into(const AVFrame& src, GstVideoFrame& dst);

}  // namespace vf
