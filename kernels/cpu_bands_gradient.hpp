// The 3x3 gradient bands on the CPU (compass and magnitude). Included by cpu_bands_impl.hpp with
// VF_CPU_NS set (cpu_bands.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "kernels/cpu_bands_rows.hpp"

namespace vf {
namespace VF_CPU_NS {
namespace {

// What both 3x3 gradient bands work in: a ring of the three padded source rows around y (index 0
// of a row is x - 1), two rows of int32 sums (a, b) and a row of values before clamping (v).
struct GradientWindow {
    GradientWindow(const PlaneOp& op_, const PlaneView& src_, BandScratch& s)
        : op(op_), src(src_), w(src_.width), ring(grow(s, src_.width), 3, src_.width + 2) {
        a = s.i32.data() + 3 * (w + 2);
        b = a + w;
        v = s.f32.data();
    }
    // The source rows y - 1, y and y + 1, bordered.
    void rows(int y, const int32_t* (&out)[3]) {
        auto fill = [this](int logical, int32_t* row) {
            load_padded_row(src, border_index(logical, src.height, op.border), 1, op.border, row);
        };
        for (int j = 0; j < 3; ++j) out[j] = ring.get(y + j - 1, fill);
    }
    static int32_t* grow(BandScratch& s, int w) {
        s.i32.resize(static_cast<size_t>(w + 2) * 3 + 2 * static_cast<size_t>(w));
        s.f32.resize(w);
        return s.i32.data();
    }

    const PlaneOp& op;
    const PlaneView& src;
    const int w;
    RowRing<int32_t> ring;
    int32_t* a = nullptr;
    int32_t* b = nullptr;
    float* v = nullptr;
};

// Kirsch: the 8 turned sums of each row, the largest kept.
void compass_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, BandScratch& s) {
    const GradientOp& g = op.grad;
    GradientWindow win(op, src, s);
    const int w = win.w;
    int32_t* best = win.a;
    int32_t* sum = win.b;
    std::array<std::array<int, 9>, 8> turned;
    for (int t = 0; t < 8; ++t) turned[t] = compass_turn(g.gx, t);
    for (int y = y0; y < y1; ++y) {
        const int32_t* rows[3];
        win.rows(y, rows);
        for (int t = 0; t < 8; ++t) {
            std::fill(sum, sum + w, 0);
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) {
                    const int32_t k = turned[t][j * 3 + i];
                    const int32_t* p = rows[j] + i;
                    if (k) for (int x = 0; x < w; ++x) sum[x] += k * p[x];
                }
            if (t == 0) std::copy(sum, sum + w, best);
            else for (int x = 0; x < w; ++x) best[x] = std::max(best[x], sum[x]);
        }
        for (int x = 0; x < w; ++x) win.v[x] = static_cast<float>(std::abs(best[x])) * g.scale + g.delta;
        store_row(dst, y, win.v);
    }
}

void gradient_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, BandScratch& s) {
    const GradientOp& g = op.grad;
    if (g.compass) return compass_band(op, src, dst, y0, y1, s);
    GradientWindow win(op, src, s);
    const int w = win.w;
    int32_t* sa = win.a;
    int32_t* sb = win.b;
    for (int y = y0; y < y1; ++y) {
        const int32_t* rows[3];
        win.rows(y, rows);
        std::fill(sa, sa + w, 0);
        std::fill(sb, sb + w, 0);
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) {
                const int32_t ka = g.gx[j * 3 + i], kb = g.gy[j * 3 + i];
                const int32_t* pi = rows[j] + i;
                if (ka) for (int x = 0; x < w; ++x) sa[x] += ka * pi[x];
                if (kb) for (int x = 0; x < w; ++x) sb[x] += kb * pi[x];
            }
        const float div = g.divisor, scale = g.scale, delta = g.delta;
        for (int x = 0; x < w; ++x) {
            const float a = static_cast<float>(sa[x]) / div;
            const float b = static_cast<float>(sb[x]) / div;
            win.v[x] = std::sqrt(a * a + b * b) * scale + delta;
        }
        store_row(dst, y, win.v);
    }
}

}  // namespace
}  // namespace VF_CPU_NS
}  // namespace vf
