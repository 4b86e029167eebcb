#include "gst/video_frames.hpp"

#include <cstring>

#include "common/error.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace vf {

namespace {

struct FormatPair {
    GstVideoFormat gst;
    AVPixelFormat av;
};

// GStreamer's P010_10LE, like FFmpeg's P010LE, keeps the 10 bits in the high bits of each sample.
constexpr FormatPair kFormats[] = {
    {GST_VIDEO_FORMAT_I420, AV_PIX_FMT_YUV420P},          {GST_VIDEO_FORMAT_YV12, AV_PIX_FMT_YUV420P},
    {GST_VIDEO_FORMAT_NV12, AV_PIX_FMT_NV12},             {GST_VIDEO_FORMAT_Y42B, AV_PIX_FMT_YUV422P},
    {GST_VIDEO_FORMAT_Y444, AV_PIX_FMT_YUV444P},          {GST_VIDEO_FORMAT_GRAY8, AV_PIX_FMT_GRAY8},
    {GST_VIDEO_FORMAT_I420_10LE, AV_PIX_FMT_YUV420P10LE}, {GST_VIDEO_FORMAT_I422_10LE, AV_PIX_FMT_YUV422P10LE},
    {GST_VIDEO_FORMAT_Y444_10LE, AV_PIX_FMT_YUV444P10LE}, {GST_VIDEO_FORMAT_P010_10LE, AV_PIX_FMT_P010LE},
};

void no_free(void*, uint8_t*) {}

// Where channel c of the AVFrame lies in the mapped frame: planar formats by component (which
// undoes YV12's plane order), semi-planar ones by plane.
bool by_component(const GstVideoFrame& f) { return GST_VIDEO_FRAME_N_PLANES(&f) == GST_VIDEO_FRAME_N_COMPONENTS(&f); }

}  // namespace

AVPixelFormat av_format_of(GstVideoFormat f) {
    for (const FormatPair& p : kFormats)
        if (p.gst == f) return p.av;
    return AV_PIX_FMT_NONE;
}

std::string element_formats() {
    std::string s = "{ ";
    for (const FormatPair& p : kFormats) s += std::string(s.size() > 2 ? ", " : "") + gst_video_format_to_string(p.gst);
    return s + " }";
}

std::string element_cuda_caps(const std::string& size_fields) {
    const std::string cuda = "video/x-raw(memory:CUDAMemory), format = (string) ";
    return cuda + "{ NV12, P010_10LE, Y42B, I422_10LE, Y444 }, width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ]" + size_fields +
           "; " + cuda + "{ I420, YV12, I420_10LE }, width = (int) [ 1, 65535 ], height = (int) [ 2, 65534, 2 ]" + size_fields;
}

AvFramePtr frame_over(const GstVideoFrame& frame) {
    const AVPixelFormat format = av_format_of(GST_VIDEO_FRAME_FORMAT(&frame));
    if (format == AV_PIX_FMT_NONE) fail(ErrorCategory::Internal, "a buffer of a format the element did not negotiate");
    AvFramePtr f = make_frame();
    f->format = format;
    f->width = GST_VIDEO_FRAME_WIDTH(&frame);
    f->height = GST_VIDEO_FRAME_HEIGHT(&frame);
    const bool comp = by_component(frame);
    const int planes = av_pix_fmt_count_planes(format);
    for (int p = 0; p < planes; ++p) {
        f->data[p] = static_cast<uint8_t*>(comp ? GST_VIDEO_FRAME_COMP_DATA(&frame, p) : GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        f->linesize[p] = comp ? GST_VIDEO_FRAME_COMP_STRIDE(&frame, p) : GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
    }
    // A reference that frees nothing: the frame is the mapping's, for as long as it is mapped.
    f->buf[0] = av_buffer_create(f->data[0], static_cast<size_t>(f->linesize[0]) * f->height, no_free, nullptr, 0);
    if (!f->buf[0]) fail(ErrorCategory::Internal, "out of memory wrapping a buffer");
    return f;
}

void copy_into(const AVFrame& src, GstVideoFrame& dst) {
    const AVPixelFormat format = static_cast<AVPixelFormat>(src.format);
    const bool comp = by_component(dst);
    const int planes = av_pix_fmt_count_planes(format);
    for (int p = 0; p < planes; ++p) {
        uint8_t* to = static_cast<uint8_t*>(comp ? GST_VIDEO_FRAME_COMP_DATA(&dst, p) : GST_VIDEO_FRAME_PLANE_DATA(&dst, p));
        const int stride = comp ? GST_VIDEO_FRAME_COMP_STRIDE(&dst, p) : GST_VIDEO_FRAME_PLANE_STRIDE(&dst, p);
        if (to == src.data[p] && stride == src.linesize[p]) continue;  // the same memory (a chain that changed nothing)
        const int bytes = av_image_get_linesize(format, src.width, p);
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
        const int rows = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(src.height, d->log2_chroma_h) : src.height;
        for (int y = 0; y < rows; ++y)
            std::memcpy(to + static_cast<size_t>(y) * stride, src.data[p] + static_cast<size_t>(y) * src.linesize[p], static_cast<size_t>(bytes));
    }
}

}  // namespace vf
