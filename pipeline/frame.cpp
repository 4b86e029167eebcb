#include "pipeline/frame.hpp"

namespace vf {

std::vector<PlaneView> channel_views(const AVFrame* f) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(f->format));
    std::vector<PlaneView> views;
    const int channels = d->nb_components >= 3 ? 3 : 1;
    for (int c = 0; c < channels; ++c) {
        const AVComponentDescriptor& comp = d->comp[c];
        PlaneView v;
        v.bytes_per_sample = comp.depth > 8 ? 2 : 1;
        v.data = f->data[comp.plane] + comp.offset;
        v.pitch = f->linesize[comp.plane];
        v.step = comp.step / v.bytes_per_sample;
        v.depth = comp.depth;
        v.shift = comp.shift;
        v.width = c == 0 ? f->width : AV_CEIL_RSHIFT(f->width, d->log2_chroma_w);
        v.height = c == 0 ? f->height : AV_CEIL_RSHIFT(f->height, d->log2_chroma_h);
        views.push_back(v);
    }
    return views;
}

}  // namespace vf
