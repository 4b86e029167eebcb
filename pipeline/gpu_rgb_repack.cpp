#include "pipeline/gpu_rgb_repack.hpp"

#include "kernels/cuda/variants.hpp"
#include "media/rgb_planes.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::cuda {
namespace {

PlaneView view_of(const SampleRun& run, int bytes, int depth, int width, int height) {
    PlaneView v;
    v.data = run.first;
    v.pitch = run.pitch;
    v.width = width;
    v.height = height;
    v.step = run.step_bytes / bytes;
    v.bytes_per_sample = bytes;
    v.depth = depth;
    return v;
}

}  // namespace

void repack_rgb_on_gpu(const AVFrame* src, AVFrame* dst, cudaStream_t stream) {
    const AVPixelFormat from = static_cast<AVPixelFormat>(src->format), to = static_cast<AVPixelFormat>(dst->format);
    if (!rgb_repackable(from, to) || src->width != dst->width || src->height != dst->height)
        fail(ErrorCategory::Internal, "repack_rgb_on_gpu: frames of different sizes or formats that are not one RGB layout");
    const RgbSampleRuns a = rgb_sample_runs(src), b = rgb_sample_runs(dst);
    const int depth = av_pix_fmt_desc_get(from)->comp[0].depth;
    for (int role = 0; role < 4; ++role) {
        if (!b.role[role].first) continue;
        if (!a.role[role].first) fail(ErrorCategory::Internal, "repack_rgb_on_gpu: the source has no fourth sample to copy");
        Launch l;
        l.src = view_of(a.role[role], a.bytes_per_sample, depth, src->width, src->height);
        l.dst = view_of(b.role[role], b.bytes_per_sample, depth, dst->width, dst->height);
        l.stream = stream;
        copy_plane(l);
    }
}

}  // namespace vf::cuda
