// The element on GStreamer's CUDA memory (cuda_memory.hpp says why vfilter offers the GPU's
// primary context): the pipeline's CUDA context shared or offered, the allocation proposed to
// upstream, and buffers filtered in place on the GPU or through host memory. Built with gstcuda.
#pragma once

#ifdef VF_GST_CUDA
#include <gst/video/video.h>

#include "gst/gstvfilter.hpp"

namespace vf::element {

// Installs the element's CUDA-memory vfuncs on its class (class_init): context queries and
// set_context, the allocation proposal, and transform_ip, which hands system memory to
// GstVideoFilter's own. parent_class: the element's parent class, which the vfuncs chain up to.
void install_cuda_memory(GstElementClass* element_class, GstBaseTransformClass* transform_class, gpointer parent_class);

// At start: where the pipeline has no CUDA context yet, vfilter's own, made known to the pipeline
// (have-context) so that elements asking later share it.
void share_cuda_context(GstVfilter* self);

// At set_info: whether the negotiated caps are CUDA memory in vfilter's context, whose planes the
// engine reads and writes in place (a warning where they are another context's).
bool negotiate_cuda_memory(GstVfilter* self, GstCaps* in_caps, const GstVideoInfo* in_info);

}  // namespace vf::element
#endif
