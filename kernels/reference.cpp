#include "kernels/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "kernels/reference_ffmpeg.hpp"

namespace vf {
namespace {

int sample(const PlaneView& p, int x, int y, Border b) {
    const int sx = border_index(x, p.width, b);
    const int sy = border_index(y, p.height, b);
    if (sx < 0 || sy < 0) return 0;
    return p.read(sx, sy);
}

void reference_convolve(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const ConvolveOp& c = op.conv;
    for (int y = y0; y < y1; ++y) {
        for (int x = 0; x < src.width; ++x) {
            float sum;
            if (c.integer) {
                int64_t acc = 0;
                for (int j = 0; j < c.kh; ++j)
                    for (int i = 0; i < c.kw; ++i)
                        acc += static_cast<int64_t>(c.k[j * c.kw + i]) *
                               sample(src, x + i - c.rx(), y + j - c.ry(), op.border);
                if (c.divisor > 0) {
                    dst.write(x, y, finish_floor(acc, c.divisor, dst.peak()));
                    continue;
                }
                sum = static_cast<float>(acc);
            } else {
                double acc = 0;
                for (int j = 0; j < c.kh; ++j)
                    for (int i = 0; i < c.kw; ++i)
                        acc += c.k[j * c.kw + i] * sample(src, x + i - c.rx(), y + j - c.ry(), op.border);
                sum = static_cast<float>(acc);
            }
            dst.write(x, y, finish_convolve(sum, c.rdiv, c.bias, dst.peak()));
        }
    }
}

// Kirsch: each of the 8 turned kernels summed directly, the largest kept.
void reference_compass(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const GradientOp& g = op.grad;
    std::array<std::array<int, 9>, 8> turned;
    for (int t = 0; t < 8; ++t) turned[t] = compass_turn(g.gx, t);
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < src.width; ++x) {
            int best = 0;
            for (int t = 0; t < 8; ++t) {
                int sum = 0;
                for (int i = 0; i < 9; ++i) sum += turned[t][i] * sample(src, x + i % 3 - 1, y + i / 3 - 1, op.border);
                best = t == 0 ? sum : std::max(best, sum);
            }
            dst.write(x, y, clamp_to_peak(static_cast<float>(std::abs(best)) * g.scale + g.delta, dst.peak()));
        }
}

void reference_gradient(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const GradientOp& g = op.grad;
    if (g.compass) return reference_compass(op, src, dst, y0, y1);
    for (int y = y0; y < y1; ++y) {
        for (int x = 0; x < src.width; ++x) {
            int sa = 0, sb = 0;
            for (int t = 0; t < 9; ++t) {
                const int v = sample(src, x + t % 3 - 1, y + t / 3 - 1, op.border);
                sa += g.gx[t] * v;
                sb += g.gy[t] * v;
            }
            const float a = static_cast<float>(sa) / g.divisor;
            const float b = static_cast<float>(sb) / g.divisor;
            dst.write(x, y, clamp_to_peak(std::sqrt(a * a + b * b) * g.scale + g.delta, dst.peak()));
        }
    }
}

}  // namespace

void reference_apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst) {
    reference_apply_rows(op, src, dst, 0, dst.height);
}

void reference_apply_rows(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    switch (op.kind) {
    case OpKind::Copy:
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < src.width; ++x) dst.write(x, y, src.read(x, y));
        break;
    case OpKind::Fill:
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < dst.width; ++x) dst.write(x, y, 1 << (dst.depth - 1));
        break;
    case OpKind::Convolve:
        reference_convolve(op, src, dst, y0, y1);
        break;
    case OpKind::Gradient:
        reference_gradient(op, src, dst, y0, y1);
        break;
    case OpKind::BoxPasses:
        reference_box_passes(op, src, dst, y0, y1);
        break;
    case OpKind::UnsharpFixed:
        reference_unsharp_fixed(op, src, dst, y0, y1);
        break;
    }
}

}  // namespace vf
