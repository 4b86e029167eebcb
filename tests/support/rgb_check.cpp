#include "support/rgb_check.hpp"

#include <gtest/gtest.h>

#include <cstdio>

extern "C" {
#include <libavutil/imgutils.h>
}

#include "config/chain_spec.hpp"
#include "kernels/reference.hpp"
#include "media/frame.hpp"
#include "media/rgb_planes.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf::test {
namespace {

// The reference output: `op` applied to every colour channel of `in`, in `in`'s own layout.
AvFramePtr per_plane_reference(const AVFrame* in, const PlaneOp& op) {
    AvFramePtr out = make_frame();
    out->width = in->width;
    out->height = in->height;
    out->format = in->format;
    av_frame_get_buffer(out.get(), 0);
    const std::vector<PlaneView> src = channel_views(in), dst = channel_views(out.get());
    for (size_t c = 0; c < src.size(); ++c) reference_apply(op, src[c], dst[c]);
    return out;
}

// `f` in its planar form with a fourth plane (gbrap, gbrap16le), or nullptr when it has none.
AvFramePtr with_fourth_plane(const AVFrame* f) {
    const AVPixelFormat format = static_cast<AVPixelFormat>(f->format);
    AVPixelFormat planes = planar_rgb_for_packed(format);
    if (planes == AV_PIX_FMT_NONE && alpha_plane(format) >= 0) planes = format;
    if (planes == AV_PIX_FMT_NONE || alpha_plane(planes) < 0) return nullptr;
    AvFramePtr out = make_frame();
    out->width = f->width;
    out->height = f->height;
    out->format = planes;
    av_frame_get_buffer(out.get(), 0);
    repack_rgb(f, out.get());
    return out;
}

}  // namespace

const std::vector<AVPixelFormat>& rgb_formats() {
    static const std::vector<AVPixelFormat> formats = {
        AV_PIX_FMT_RGB24,    AV_PIX_FMT_BGR24,    AV_PIX_FMT_RGBA,     AV_PIX_FMT_BGRA,     AV_PIX_FMT_ARGB,
        AV_PIX_FMT_RGB0,     AV_PIX_FMT_BGR0,     AV_PIX_FMT_0RGB,     AV_PIX_FMT_RGB48LE,  AV_PIX_FMT_RGBA64LE,
        AV_PIX_FMT_GBRP,     AV_PIX_FMT_GBRAP,    AV_PIX_FMT_GBRP10LE, AV_PIX_FMT_GBRP12LE, AV_PIX_FMT_GBRP16LE,
        AV_PIX_FMT_GBRAP16LE};
    return formats;
}

long fourth_sample_differences(const AVFrame* a, const AVFrame* b) {
    const AvFramePtr pa = with_fourth_plane(a), pb = with_fourth_plane(b);
    if (!pa || !pb || pa->format != pb->format || a->width != b->width || a->height != b->height) return -1;
    const int p = alpha_plane(static_cast<AVPixelFormat>(pa->format));
    const int bytes = av_image_get_linesize(static_cast<AVPixelFormat>(pa->format), pa->width, p);
    long n = 0;
    for (int y = 0; y < pa->height; ++y)
        for (int x = 0; x < bytes; ++x) n += pa->data[p][y * pa->linesize[p] + x] != pb->data[p][y * pb->linesize[p] + x];
    return n;
}

std::string write_rgb_clip(const std::string& dir, AVPixelFormat format) {
    ClipSpec clip;
    clip.path = dir + "/in.nut";
    clip.width = 97;
    clip.height = 61;
    clip.format = format;
    clip.frames = 3;
    clip.video_codec = "rawvideo";
    clip.audio = false;
    clip.seed = static_cast<unsigned>(format) + 7;
    write_clip(clip);
    return clip.path;
}

int check_rgb_output(const std::string& clip, const std::string& out, const std::string& filter, FilterDefaults defaults,
                     const std::string& what) {
    const std::vector<AvFramePtr> in = read_video_frames(clip);
    EXPECT_EQ(summarize(out).format, in.empty() ? AV_PIX_FMT_NONE : static_cast<AVPixelFormat>(in[0]->format))
        << what << ": the output's pixel format";
    const std::vector<AvFramePtr> got = read_video_frames(out);
    EXPECT_EQ(in.size(), 3u) << what;
    EXPECT_EQ(got.size(), in.size()) << what;
    // The filter's luma operation as planned for YUV 4:4:4 frames of this size: on RGB every colour
    // plane gets it.
    FrameGeometry yuv444;
    yuv444.width = in.empty() ? 0 : in[0]->width;
    yuv444.height = in.empty() ? 0 : in[0]->height;
    yuv444.log2_chroma_w = yuv444.log2_chroma_h = 0;
    const PlaneOp op = build_chain(filter, defaults, yuv444).at(0).ops[0];
    int compared = 0;
    for (size_t i = 0; i < in.size() && i < got.size(); ++i) {
        const AvFramePtr expected = per_plane_reference(in[i].get(), op);
        std::string where;
        EXPECT_EQ(frame_differences(expected.get(), got[i].get(), false, &where), 0) << what << " frame " << i << ": " << where;
        const long fourth = fourth_sample_differences(in[i].get(), got[i].get());
        if (fourth >= 0) {
            EXPECT_EQ(fourth, 0) << what << " frame " << i << ": alpha or padding bytes changed";
        }
        ++compared;
    }
    return compared;
}

int check_rgb_through_cli(AVPixelFormat format, const std::string& filter, const std::string& device,
                          const std::vector<std::string>& extra) {
    const std::string what = filter + " on " + av_get_pix_fmt_name(format) + " (" + device + ")";
    const std::string dir = temp_dir(), clip = write_rgb_clip(dir, format), out = dir + "/out.nut";
    std::vector<std::string> args = {"--device", device, "-y"};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const std::string& a : {std::string("-i"), clip, std::string("-f"), filter, std::string("--codec"), std::string("rawvideo"),
                                 std::string("-o"), out})
        args.push_back(a);
    const CommandResult run = run_vfilter(args);
    EXPECT_EQ(run.exit_code, 0) << what << ": " << run.output;
    bool compat = false;
    for (size_t a = 0; a + 1 < extra.size(); ++a) compat |= extra[a] == "--compat" && extra[a + 1] == "ffmpeg";
    return check_rgb_output(clip, out, filter, compat ? FilterDefaults::Ffmpeg : FilterDefaults::Vfilter, what);
}

}  // namespace vf::test
