// Included by cpu_bands_generic.cpp and cpu_bands_avx2.cpp with VF_CPU_NS set; see
// cpu_bands.hpp. Every loop over x is written so the compiler can vectorise it.
// The separable and gradient bands live in cpu_bands_separable.hpp and cpu_bands_gradient.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kernels/border.hpp"
#include "kernels/cpu_bands.hpp"
#include "kernels/cpu_bands_gradient.hpp"
#include "kernels/cpu_bands_rows.hpp"
#include "kernels/cpu_bands_separable.hpp"
#include "kernels/cpu_ffmpeg_blurs.hpp"
#include "kernels/reference_ffmpeg.hpp"

namespace vf {
namespace VF_CPU_NS {
namespace {

// Direct 2D convolution of rows [y0, y1). Acc is int32 (exact when the worst case fits),
// int64 (exact) or double (non-integer coefficients; the reference's tap order).
template <typename Acc>
void direct_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, std::vector<Acc>& mem,
                 std::vector<float>& vals) {
    const ConvolveOp& c = op.conv;
    const int w = src.width, rx = c.rx(), ry = c.ry(), len = w + 2 * rx;
    mem.resize(static_cast<size_t>(len) * c.kh + w);
    vals.resize(w);
    Acc* acc = mem.data() + static_cast<size_t>(len) * c.kh;
    RowRing<Acc> ring(mem.data(), c.kh, len);
    const std::vector<Acc> coef(c.k.begin(), c.k.end());
    auto fill = [&](int logical, Acc* out) {
        load_padded_row(src, border_index(logical, src.height, op.border), rx, op.border, out);
    };
    for (int y = y0; y < y1; ++y) {
        std::fill(acc, acc + w, Acc(0));
        for (int j = 0; j < c.kh; ++j) {
            const Acc* p = ring.get(y + j - ry, fill);
            const Acc* k = coef.data() + j * c.kw;
            for (int i = 0; i < c.kw; ++i) {
                const Acc ki = k[i];
                if (ki == Acc(0)) continue;  // adds exactly 0 (pixels are finite)
                const Acc* pi = p + i;
                for (int x = 0; x < w; ++x) acc[x] += ki * pi[x];
            }
        }
        finish_convolve_row(dst, y, acc, c, vals.data());
    }
}

void copy_band(const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const bool same_layout = src.step == 1 && dst.step == 1 && src.bytes_per_sample == dst.bytes_per_sample &&
                             src.shift == dst.shift;
    for (int y = y0; y < y1; ++y) {
        if (same_layout)
            std::copy(src.data + y * src.pitch, src.data + y * src.pitch + static_cast<size_t>(src.width) * src.bytes_per_sample,
                      dst.data + y * dst.pitch);
        else
            for (int x = 0; x < src.width; ++x) dst.write(x, y, src.read(x, y));
    }
}

void fill_band(const PlaneView& dst, int y0, int y1) {
    const int v = 1 << (dst.depth - 1);
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < dst.width; ++x) dst.write(x, y, v);
}

// Worst-case |sum| for the plane's depth, to decide whether int32 accumulation is exact.
bool fits_int32(const std::vector<double>& k, int peak) {
    double s = 0;
    for (double v : k) s += std::fabs(v);
    return s * peak < 2147483647.0;
}
bool fits_int32(const std::vector<int>& a, const std::vector<int>& b, int peak) {
    double sa = 0, sb = 0;
    for (int v : a) sa += std::abs(v);
    for (int v : b) sb += std::abs(v);
    return sa * peak < 2147483647.0 && sa * sb * peak < 2147483647.0;
}

}  // namespace

void run_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, bool allow_separable,
              BandScratch& s) {
    switch (op.kind) {
    case OpKind::Copy:
        copy_band(src, dst, y0, y1);
        return;
    case OpKind::Fill:
        fill_band(dst, y0, y1);
        return;
    case OpKind::Gradient:
        gradient_band(op, src, dst, y0, y1, s);
        return;
    case OpKind::UnsharpFixed:
        unsharp_fixed_band(op, src, dst, y0, y1, s.u32);
        return;
    case OpKind::BoxPasses:
        // Not a band operation (every column's passes read every row's): CpuBackend::apply runs it
        // whole; a caller of a band alone gets the reference's rows.
        reference_box_passes(op, src, dst, y0, y1);
        return;
    case OpKind::Convolve: {
        const ConvolveOp& c = op.conv;
        const int peak = src.peak();
        if (allow_separable && c.separable()) {
            if (fits_int32(c.row, c.col, peak)) separable_band<int32_t>(op, src, dst, y0, y1, s.i32, s.f32, s.i16, s.zeros);
            else separable_band<int64_t>(op, src, dst, y0, y1, s.i64, s.f32, s.i16, s.zeros);
        } else if (!c.integer) {
            direct_band<double>(op, src, dst, y0, y1, s.f64, s.f32);
        } else if (fits_int32(c.k, peak)) {
            direct_band<int32_t>(op, src, dst, y0, y1, s.i32, s.f32);
        } else {
            direct_band<int64_t>(op, src, dst, y0, y1, s.i64, s.f32);
        }
        return;
    }
    }
}

}  // namespace VF_CPU_NS
}  // namespace vf
