// The row helpers every CPU band kernel uses: padded source rows, a ring of rows, the store of a
// finished row. Included by cpu_bands_impl.hpp and its parts with VF_CPU_NS set (cpu_bands.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/border.hpp"
#include "kernels/cpu_bands.hpp"

namespace vf {
namespace VF_CPU_NS {
namespace {

// Reads source row `sy` (or zeros when sy < 0) into out[0, w + 2r) with r border samples each side.
template <typename T>
void load_padded_row(const PlaneView& src, int sy, int r, Border border, T* out) {
    const int w = src.width;
    if (sy < 0) {
        std::fill(out, out + w + 2 * r, T(0));
        return;
    }
    T* mid = out + r;
    const uint8_t* row = src.data + sy * src.pitch;
    if (src.bytes_per_sample == 1) {
        if (src.step == 1)
            for (int x = 0; x < w; ++x) mid[x] = static_cast<T>(row[x]);
        else
            for (int x = 0; x < w; ++x) mid[x] = static_cast<T>(row[static_cast<std::ptrdiff_t>(x) * src.step]);
    } else {
        const uint16_t* r16 = reinterpret_cast<const uint16_t*>(row);
        const int s = src.shift;
        if (src.step == 1)
            for (int x = 0; x < w; ++x) mid[x] = static_cast<T>(r16[x] >> s);
        else
            for (int x = 0; x < w; ++x) mid[x] = static_cast<T>(r16[static_cast<std::ptrdiff_t>(x) * src.step] >> s);
    }
    for (int i = 1; i <= r; ++i) {
        const int l = border_index(-i, w, border), rr = border_index(w - 1 + i, w, border);
        out[r - i] = l < 0 ? T(0) : mid[l];
        out[r + w - 1 + i] = rr < 0 ? T(0) : mid[rr];
    }
}

// Rows y - r .. y + r of a band, each loaded once: logical row L lives in slot L mod rows.
template <typename T>
class RowRing {
public:
    RowRing(T* storage, int rows, int row_len) : buf_(storage), rows_(rows), len_(row_len), held_(rows, INT32_MIN) {}
    template <typename Fill>
    const T* get(int logical, Fill&& fill) {
        int slot = logical % rows_;
        if (slot < 0) slot += rows_;
        T* p = buf_ + static_cast<std::ptrdiff_t>(slot) * len_;
        if (held_[slot] != logical) {
            fill(logical, p);
            held_[slot] = logical;
        }
        return p;
    }

private:
    T* buf_;
    int rows_, len_;
    std::vector<int> held_;
};

// Clamps v[0, w) to [0, peak], truncates (FFmpeg's (int) cast) and writes row y. Same result as
// clamp_to_peak() in kernels/reference.hpp, NaN included.
void store_row(const PlaneView& dst, int y, const float* v) {
    const int w = dst.width;
    const float peak = static_cast<float>(dst.peak());
    uint8_t* row = dst.data + y * dst.pitch;
    if (dst.bytes_per_sample == 1 && dst.step == 1) {
        for (int x = 0; x < w; ++x) {
            float c = v[x] > 0.0f ? v[x] : 0.0f;
            c = c < peak ? c : peak;
            row[x] = static_cast<uint8_t>(static_cast<int>(c));
        }
    } else if (dst.bytes_per_sample == 2 && dst.step == 1) {
        uint16_t* r16 = reinterpret_cast<uint16_t*>(row);
        const int s = dst.shift;
        for (int x = 0; x < w; ++x) {
            float c = v[x] > 0.0f ? v[x] : 0.0f;
            c = c < peak ? c : peak;
            r16[x] = static_cast<uint16_t>(static_cast<int>(c) << s);
        }
    } else {
        for (int x = 0; x < w; ++x) {
            float c = v[x] > 0.0f ? v[x] : 0.0f;
            c = c < peak ? c : peak;
            dst.write(x, y, static_cast<int>(c));
        }
    }
}

template <typename Acc>
void finish_convolve_row(const PlaneView& dst, int y, const Acc* acc, const ConvolveOp& c, float* v) {
    if (c.divisor > 0) {  // whole-number sums only (FFmpeg's avgblur): the quotient rounded down
        if constexpr (std::is_integral<Acc>::value) {
            const Acc d = static_cast<Acc>(c.divisor);
            for (int x = 0; x < dst.width; ++x) v[x] = acc[x] > 0 ? static_cast<float>(acc[x] / d) : 0.0f;
            store_row(dst, y, v);
            return;
        }
    }
    const float rdiv = c.rdiv, bias = c.bias;
    for (int x = 0; x < dst.width; ++x) v[x] = static_cast<float>(acc[x]) * rdiv + bias + 0.5f;
    store_row(dst, y, v);
}

}  // namespace
}  // namespace VF_CPU_NS
}  // namespace vf
