#include "media/frame.hpp"

#include <algorithm>

extern "C" {
#include <libavutil/imgutils.h>
}

namespace vf {

std::vector<PlaneView> channel_views(AVPixelFormat format, int width, int height, uint8_t* const data[4],
                                     const int linesize[4]) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    std::vector<PlaneView> views;
    const int channels = d->nb_components >= 3 ? 3 : 1;
    // FFmpeg describes RGB components as R, G, B; its planar gbrp stores them G, B, R.
    const bool rgb = d->flags & AV_PIX_FMT_FLAG_RGB;
    static constexpr int kGbrOrder[3] = {1, 2, 0};
    for (int c = 0; c < channels; ++c) {
        const AVComponentDescriptor& comp = d->comp[rgb ? kGbrOrder[c] : c];
        PlaneView v;
        v.bytes_per_sample = comp.depth > 8 ? 2 : 1;
        v.data = data[comp.plane] + comp.offset;
        v.pitch = linesize[comp.plane];
        v.step = comp.step / v.bytes_per_sample;
        v.depth = comp.depth;
        v.shift = comp.shift;
        v.width = c == 0 ? width : AV_CEIL_RSHIFT(width, d->log2_chroma_w);
        v.height = c == 0 ? height : AV_CEIL_RSHIFT(height, d->log2_chroma_h);
        views.push_back(v);
    }
    return views;
}

int alpha_plane(AVPixelFormat format) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    if (!d || !(d->flags & AV_PIX_FMT_FLAG_ALPHA) || !(d->flags & AV_PIX_FMT_FLAG_PLANAR)) return -1;
    return d->comp[d->nb_components - 1].plane;
}

void copy_alpha_plane(const AVFrame* src, AVFrame* dst) {
    const AVPixelFormat format = static_cast<AVPixelFormat>(src->format);
    const int p = alpha_plane(format);
    if (p < 0) return;
    av_image_copy_plane(dst->data[p], dst->linesize[p], src->data[p], src->linesize[p], av_image_get_linesize(format, src->width, p),
                        src->height);
}

double in_1080p30_cameras(int width, int height, double fps) {
    if (!(fps > 0) || fps > 1000) fps = 30;
    return static_cast<double>(std::max(width, 0)) * std::max(height, 0) * fps / (1920.0 * 1080 * 30);
}

int64_t VideoInfo::frame_interval(AVRational in_time_base) const {
    const AVRational rate = frame_rate.num > 0 && frame_rate.den > 0 ? frame_rate : AVRational{25, 1};
    return std::max<int64_t>(1, av_rescale_q(1, av_inv_q(rate), in_time_base));
}

}  // namespace vf
