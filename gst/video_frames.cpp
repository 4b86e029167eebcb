#include "gst/video_frames.hpp"

#include "common/error.hpp"
#include "media/rgb_planes.hpp"

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
    // Packed RGB, filtered as its planes (gst/element_engine.cpp); x bytes pass through.
    {GST_VIDEO_FORMAT_RGBA, AV_PIX_FMT_RGBA},             {GST_VIDEO_FORMAT_BGRA, AV_PIX_FMT_BGRA},
    {GST_VIDEO_FORMAT_ARGB, AV_PIX_FMT_ARGB},             {GST_VIDEO_FORMAT_ABGR, AV_PIX_FMT_ABGR},
    {GST_VIDEO_FORMAT_RGBx, AV_PIX_FMT_RGB0},             {GST_VIDEO_FORMAT_BGRx, AV_PIX_FMT_BGR0},
    {GST_VIDEO_FORMAT_xRGB, AV_PIX_FMT_0RGB},             {GST_VIDEO_FORMAT_xBGR, AV_PIX_FMT_0BGR},
    {GST_VIDEO_FORMAT_RGB, AV_PIX_FMT_RGB24},             {GST_VIDEO_FORMAT_BGR, AV_PIX_FMT_BGR24},
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
    return cuda + "{ NV12, P010_10LE, Y42B, I422_10LE, Y444, RGBA, BGRA, RGBx, BGRx }, width = (int) [ 1, 65535 ], height = (int) [ 1, 65535 ]" + size_fields +
           "; " + cuda + "{ I420, YV12, I420_10LE }, width = (int) [ 1, 65535 ], height = (int) [ 2, 65534, 2 ]" + size_fields;
}

void plane_pointers(const GstVideoFrame& frame, uint8_t* data[4], int linesize[4]) {
    const bool comp = by_component(frame);
    for (int p = 0; p < 4; ++p) {
        const bool there = p < static_cast<int>(comp ? GST_VIDEO_FRAME_N_COMPONENTS(&frame) : GST_VIDEO_FRAME_N_PLANES(&frame));
        data[p] = !there ? nullptr
                  : static_cast<uint8_t*>(comp ? GST_VIDEO_FRAME_COMP_DATA(&frame, p) : GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        linesize[p] = !there ? 0 : comp ? GST_VIDEO_FRAME_COMP_STRIDE(&frame, p) : GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
    }
}

AvFramePtr frame_over(const GstVideoFrame& frame) {
    const AVPixelFormat format = av_format_of(GST_VIDEO_FRAME_FORMAT(&frame));
    if (format == AV_PIX_FMT_NONE) fail(ErrorCategory::Internal, "a buffer of a format the element did not negotiate");
    AvFramePtr f = make_frame();
    f->format = format;
    f->width = GST_VIDEO_FRAME_WIDTH(&frame);
    f->height = GST_VIDEO_FRAME_HEIGHT(&frame);
    plane_pointers(frame, f->data, f->linesize);
    // enable='...t...' reads it: FFmpeg's t is the frame's timestamp. GStreamer's buffer offset is
    // no byte position for raw video (it counts frames), so pos stays unknown (NAN).
    const GstClockTime pts = frame.buffer ? GST_BUFFER_PTS(frame.buffer) : GST_CLOCK_TIME_NONE;
    f->pts = GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<int64_t>(pts) : AV_NOPTS_VALUE;
    // A reference that frees nothing: the frame is the mapping's, for as long as it is mapped.
    f->buf[0] = av_buffer_create(f->data[0], static_cast<size_t>(f->linesize[0]) * f->height, no_free, nullptr, 0);
    if (!f->buf[0]) fail(ErrorCategory::Internal, "out of memory wrapping a buffer");
    return f;
}

void copy_into(const AVFrame& src, GstVideoFrame& dst) {
    uint8_t* to[4];
    int stride[4];
    plane_pointers(dst, to, stride);
    if (to[0] == src.data[0] && stride[0] == src.linesize[0]) return;  // the same memory (a chain that changed nothing)
    if (src.format != av_format_of(GST_VIDEO_FRAME_FORMAT(&dst))) {  // packed RGB's planes, packed again
        AvFramePtr packed = frame_over(dst);
        repack_rgb(&src, packed.get());
        return;
    }
    av_image_copy(to, stride, const_cast<const uint8_t**>(src.data), src.linesize, static_cast<AVPixelFormat>(src.format), src.width,
                  src.height);
}

}  // namespace vf
