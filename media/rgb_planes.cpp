#include "media/rgb_planes.hpp"

#include <cstring>
#include <vector>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include "common/error.hpp"

namespace vf {
namespace {

constexpr int kNoSample = -1;

bool native_byte_order(const AVPixFmtDescriptor* d) {
    const bool big = av_pix_fmt_desc_get(AV_PIX_FMT_GBRP16)->flags & AV_PIX_FMT_FLAG_BE;
    return d->comp[0].depth <= 8 || !(d->flags & AV_PIX_FMT_FLAG_BE) == !big;
}

// An RGB format whose samples are whole bytes or whole 16-bit words of one depth, unshifted, in
// this machine's byte order: packed ones of 8 or 16 bits, planar ones of any depth up to 16.
const AVPixFmtDescriptor* simple_rgb(AVPixelFormat f) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
    if (!d || !(d->flags & AV_PIX_FMT_FLAG_RGB) || (d->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL)))
        return nullptr;
    if (d->nb_components < 3 || !native_byte_order(d)) return nullptr;
    const int depth = d->comp[0].depth;
    for (int c = 0; c < d->nb_components; ++c)
        if (d->comp[c].depth != depth || d->comp[c].shift != 0) return nullptr;
    const bool planar = d->flags & AV_PIX_FMT_FLAG_PLANAR;
    if (depth < 8 || depth > 16 || (!planar && depth != 8 && depth != 16)) return nullptr;
    return d;
}

// Where one of R, G, B and the fourth sample (alpha, or a packed format's padding) lies.
struct SampleSpot {
    int plane = kNoSample;
    int offset = 0;  // bytes into the row
    int step = 1;    // samples from one pixel to the next
};

SampleSpot spot_of(const AVPixFmtDescriptor* d, int role) {
    const int bytes = d->comp[0].depth > 8 ? 2 : 1;
    if (role < d->nb_components) {
        const AVComponentDescriptor& c = d->comp[role];
        return {c.plane, c.offset, c.step / bytes};
    }
    const bool planar = d->flags & AV_PIX_FMT_FLAG_PLANAR;
    if (planar || d->comp[0].step != 4 * bytes) return {};
    // rgb0, 0rgb, bgr0, 0bgr: the padding is the one place no component takes.
    int taken = 0;
    for (int c = 0; c < 3; ++c) taken |= 1 << (d->comp[c].offset / bytes);
    for (int i = 0; i < 4; ++i)
        if (!(taken & (1 << i))) return {0, i * bytes, 4};
    return {};
}

template <typename T>
void copy_role(const AVFrame* src, const SampleSpot& from, AVFrame* dst, const SampleSpot& to) {
    for (int y = 0; y < src->height; ++y) {
        const T* in = reinterpret_cast<const T*>(src->data[from.plane] + static_cast<std::ptrdiff_t>(y) * src->linesize[from.plane] + from.offset);
        T* out = reinterpret_cast<T*>(dst->data[to.plane] + static_cast<std::ptrdiff_t>(y) * dst->linesize[to.plane] + to.offset);
        if (from.step == 1 && to.step == 1) {
            std::memcpy(out, in, sizeof(T) * static_cast<size_t>(src->width));
            continue;
        }
        for (int x = 0; x < src->width; ++x) out[x * to.step] = in[x * from.step];
    }
}

template <typename T>
void fill_role(AVFrame* dst, const SampleSpot& to, T value) {
    for (int y = 0; y < dst->height; ++y) {
        T* out = reinterpret_cast<T*>(dst->data[to.plane] + static_cast<std::ptrdiff_t>(y) * dst->linesize[to.plane] + to.offset);
        for (int x = 0; x < dst->width; ++x) out[x * to.step] = value;
    }
}

template <typename T>
T* row_of(const AVFrame* f, int plane, int y) {
    return reinterpret_cast<T*>(f->data[plane] + static_cast<std::ptrdiff_t>(y) * f->linesize[plane]);
}

// One row of a packed picture of N samples a pixel against N plane rows, written one way or the
// other with every pointer distinct, so that the compiler moves whole vectors of pixels.
template <typename T, int N>
void unpack_row(const T* __restrict in, T* __restrict r0, T* __restrict r1, T* __restrict r2, T* __restrict r3, int width) {
    for (int x = 0; x < width; ++x) {
        r0[x] = in[N * x], r1[x] = in[N * x + 1], r2[x] = in[N * x + 2];
        if constexpr (N == 4) r3[x] = in[N * x + 3];
    }
}
template <typename T, int N>
void pack_row(T* __restrict out, const T* __restrict r0, const T* __restrict r1, const T* __restrict r2, const T* __restrict r3,
              int width) {
    for (int x = 0; x < width; ++x) {
        out[N * x] = r0[x], out[N * x + 1] = r1[x], out[N * x + 2] = r2[x];
        if constexpr (N == 4) out[N * x + 3] = r3[x];
    }
}

// Packed RGB of N samples a pixel to its planes (unpack) or back: a plane row for each place in
// the pixel; a place the planes lack is written to a spare row, or read from one that is opaque.
template <typename T, int N>
void move_packed(const AVFrame* packed, const AVPixFmtDescriptor* pd, const AVFrame* planar, const AVPixFmtDescriptor* qd, bool unpack) {
    int plane_at[4] = {-1, -1, -1, -1};
    for (int role = 0; role < 4; ++role) {
        const SampleSpot p = spot_of(pd, role), q = spot_of(qd, role);
        if (p.plane != kNoSample && q.plane != kNoSample) plane_at[p.offset / static_cast<int>(sizeof(T))] = q.plane;
    }
    std::vector<T> spare(static_cast<size_t>(packed->width), static_cast<T>((1 << pd->comp[0].depth) - 1));
    for (int y = 0; y < packed->height; ++y) {
        T* rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = k < N && plane_at[k] >= 0 ? row_of<T>(planar, plane_at[k], y) : spare.data();
        if (unpack) unpack_row<T, N>(row_of<T>(packed, 0, y), rows[0], rows[1], rows[2], rows[3], packed->width);
        else pack_row<T, N>(row_of<T>(packed, 0, y), rows[0], rows[1], rows[2], rows[3], packed->width);
    }
}

// repack_rgb between a packed layout and a planar one; false for other pairs.
template <typename T>
bool repack_packed_planar(const AVFrame* src, const AVPixFmtDescriptor* a, AVFrame* dst, const AVPixFmtDescriptor* b) {
    const bool unpack = !(a->flags & AV_PIX_FMT_FLAG_PLANAR);
    if (unpack == !(b->flags & AV_PIX_FMT_FLAG_PLANAR)) return false;
    const AVFrame* packed = unpack ? src : dst;
    const AVPixFmtDescriptor* pd = unpack ? a : b;
    const int n = pd->comp[0].step / static_cast<int>(sizeof(T));
    if (n == 3) move_packed<T, 3>(packed, pd, unpack ? dst : src, unpack ? b : a, unpack);
    else if (n == 4) move_packed<T, 4>(packed, pd, unpack ? dst : src, unpack ? b : a, unpack);
    else return false;
    return true;
}

}  // namespace

RgbSampleRuns rgb_sample_runs(const AVFrame* f) {
    const AVPixelFormat format = static_cast<AVPixelFormat>(f->format);
    if (!rgb_repackable(format, format)) fail(ErrorCategory::Internal, "rgb_sample_runs: not an RGB layout repack_rgb takes");
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    RgbSampleRuns runs;
    runs.bytes_per_sample = d->comp[0].depth > 8 ? 2 : 1;
    for (int role = 0; role < 4; ++role) {
        const SampleSpot s = spot_of(d, role);
        if (s.plane == kNoSample) continue;
        runs.role[role] = {f->data[s.plane] + s.offset, f->linesize[s.plane], s.step * runs.bytes_per_sample};
    }
    return runs;
}

bool is_rgb_format(AVPixelFormat f) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
    return d && (d->flags & AV_PIX_FMT_FLAG_RGB);
}

AVPixelFormat planar_rgb_for_packed(AVPixelFormat f) {
    const AVPixFmtDescriptor* d = simple_rgb(f);
    if (!d || (d->flags & AV_PIX_FMT_FLAG_PLANAR)) return AV_PIX_FMT_NONE;
    const bool fourth = spot_of(d, 3).plane != kNoSample;
    if (d->comp[0].depth == 8) return fourth ? AV_PIX_FMT_GBRAP : AV_PIX_FMT_GBRP;
    return fourth ? AV_PIX_FMT_GBRAP16 : AV_PIX_FMT_GBRP16;
}

bool rgb_repackable(AVPixelFormat from, AVPixelFormat to) {
    const AVPixFmtDescriptor *a = simple_rgb(from), *b = simple_rgb(to);
    return a && b && a->comp[0].depth == b->comp[0].depth;
}

void repack_rgb(const AVFrame* src, AVFrame* dst) {
    const AVPixelFormat from = static_cast<AVPixelFormat>(src->format), to = static_cast<AVPixelFormat>(dst->format);
    if (!rgb_repackable(from, to) || src->width != dst->width || src->height != dst->height)
        fail(ErrorCategory::Internal, "repack_rgb: frames of different sizes or formats that are not one RGB layout");
    const AVPixFmtDescriptor *a = av_pix_fmt_desc_get(from), *b = av_pix_fmt_desc_get(to);
    const bool wide = a->comp[0].depth > 8;
    const bool moved = wide ? repack_packed_planar<uint16_t>(src, a, dst, b) : repack_packed_planar<uint8_t>(src, a, dst, b);
    for (int role = 0; role < 4; ++role) {
        const SampleSpot in = spot_of(a, role), out = spot_of(b, role);
        if (out.plane == kNoSample || (moved && in.plane != kNoSample)) continue;
        if (in.plane != kNoSample) {
            if (wide) copy_role<uint16_t>(src, in, dst, out);
            else copy_role<uint8_t>(src, in, dst, out);
        } else if (wide) {
            fill_role<uint16_t>(dst, out, static_cast<uint16_t>((1 << b->comp[0].depth) - 1));
        } else {
            fill_role<uint8_t>(dst, out, 255);
        }
    }
}

}  // namespace vf
