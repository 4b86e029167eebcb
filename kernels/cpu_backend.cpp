#include "kernels/cpu_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernels/reference.hpp"

namespace vf {

struct CpuBackend::Scratch {
    std::vector<int32_t> i32;
    std::vector<int64_t> i64;
    std::vector<double> f64;
    std::vector<int32_t> gather;

    template <typename T> std::vector<T>& get();
};
template <> std::vector<int32_t>& CpuBackend::Scratch::get<int32_t>() { return i32; }
template <> std::vector<int64_t>& CpuBackend::Scratch::get<int64_t>() { return i64; }
template <> std::vector<double>& CpuBackend::Scratch::get<double>() { return f64; }

namespace {

// Reads source row `sy` (or zeros) into out[0, w + 2*r) with r border samples on each side.
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
        for (int x = 0; x < w; ++x) mid[x] = static_cast<T>(r16[static_cast<std::ptrdiff_t>(x) * src.step] >> src.shift);
    }
    for (int i = 1; i <= r; ++i) {
        const int l = border_index(-i, w, border), rr = border_index(w - 1 + i, w, border);
        out[r - i] = l < 0 ? T(0) : mid[l];
        out[r + w - 1 + i] = rr < 0 ? T(0) : mid[rr];
    }
}

// Rows y - r .. y + r of a band, each loaded once: logical row L lives in slot L mod (2r+1).
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

template <typename Acc>
void store_row(const PlaneView& dst, int y, const Acc* acc, float rdiv, float bias) {
    const int peak = dst.peak();
    for (int x = 0; x < dst.width; ++x) dst.write(x, y, finish_convolve(static_cast<float>(acc[x]), rdiv, bias, peak));
}

// Fast store for the common 8-bit planar case, same arithmetic as store_row.
template <typename Acc>
void store_row_u8(uint8_t* out, int w, const Acc* acc, float rdiv, float bias) {
    for (int x = 0; x < w; ++x) {
        float v = static_cast<float>(acc[x]) * rdiv + bias + 0.5f;
        v = v > 0.0f ? v : 0.0f;
        v = v < 255.0f ? v : 255.0f;
        out[x] = static_cast<uint8_t>(static_cast<int>(v));
    }
}

template <typename Acc>
void finish_row(const PlaneView& dst, int y, const Acc* acc, const ConvolveOp& c) {
    if (dst.bytes_per_sample == 1 && dst.step == 1 && dst.depth == 8)
        store_row_u8(dst.data + y * dst.pitch, dst.width, acc, c.rdiv, c.bias);
    else
        store_row(dst, y, acc, c.rdiv, c.bias);
}

// Direct 2D convolution of rows [y0, y1). Acc is int32 (exact when the worst case fits),
// int64 (exact) or double (non-integer coefficients; same tap order as the reference).
template <typename Acc>
void direct_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, std::vector<Acc>& mem) {
    const ConvolveOp& c = op.conv;
    const int w = src.width, rx = c.rx(), ry = c.ry(), len = w + 2 * rx;
    mem.resize(static_cast<size_t>(len) * c.kh + w);
    Acc* acc = mem.data() + static_cast<size_t>(len) * c.kh;
    RowRing<Acc> ring(mem.data(), c.kh, len);
    std::vector<Acc> coef(c.k.begin(), c.k.end());
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
                // Zero taps are skipped only where skipping cannot change a rounded result.
                if (ki == Acc(0) && !std::is_floating_point<Acc>::value) continue;
                const Acc* pi = p + i;
                for (int x = 0; x < w; ++x) acc[x] += ki * pi[x];
            }
        }
        finish_row(dst, y, acc, c);
    }
}

// Row pass into a ring of intermediate rows, then a column pass; whole numbers throughout.
template <typename Acc>
void separable_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, std::vector<Acc>& mem) {
    const ConvolveOp& c = op.conv;
    const int w = src.width, rx = c.rx(), ry = c.ry(), len = w + 2 * rx;
    mem.resize(static_cast<size_t>(w) * c.kh + len + w);
    Acc* padded = mem.data() + static_cast<size_t>(w) * c.kh;
    Acc* acc = padded + len;
    RowRing<Acc> ring(mem.data(), c.kh, w);
    const std::vector<Acc> row(c.row.begin(), c.row.end()), col(c.col.begin(), c.col.end());
    auto fill = [&](int logical, Acc* out) {
        load_padded_row(src, border_index(logical, src.height, op.border), rx, op.border, padded);
        std::fill(out, out + w, Acc(0));
        for (int i = 0; i < c.kw; ++i) {
            const Acc ki = row[i];
            if (ki == 0) continue;
            const Acc* pi = padded + i;
            for (int x = 0; x < w; ++x) out[x] += ki * pi[x];
        }
    };
    for (int y = y0; y < y1; ++y) {
        std::fill(acc, acc + w, Acc(0));
        for (int j = 0; j < c.kh; ++j) {
            const Acc kj = col[j];
            if (kj == 0) continue;
            const Acc* r = ring.get(y + j - ry, fill);
            for (int x = 0; x < w; ++x) acc[x] += kj * r[x];
        }
        finish_row(dst, y, acc, c);
    }
}

void gradient_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, std::vector<int32_t>& mem) {
    const GradientOp& g = op.grad;
    const int w = src.width, len = w + 2;
    mem.resize(static_cast<size_t>(len) * 3 + 2 * w);
    int32_t* sa = mem.data() + 3 * len;
    int32_t* sb = sa + w;
    RowRing<int32_t> ring(mem.data(), 3, len);
    auto fill = [&](int logical, int32_t* out) {
        load_padded_row(src, border_index(logical, src.height, op.border), 1, op.border, out);
    };
    const int peak = dst.peak();
    for (int y = y0; y < y1; ++y) {
        std::fill(sa, sa + w, 0);
        std::fill(sb, sb + w, 0);
        for (int j = 0; j < 3; ++j) {
            const int32_t* p = ring.get(y + j - 1, fill);
            for (int i = 0; i < 3; ++i) {
                const int32_t ka = g.gx[j * 3 + i], kb = g.gy[j * 3 + i];
                const int32_t* pi = p + i;
                if (ka) for (int x = 0; x < w; ++x) sa[x] += ka * pi[x];
                if (kb) for (int x = 0; x < w; ++x) sb[x] += kb * pi[x];
            }
        }
        for (int x = 0; x < w; ++x) {
            const float a = static_cast<float>(sa[x]) / g.divisor;
            const float b = static_cast<float>(sb[x]) / g.divisor;
            dst.write(x, y, clamp_to_peak(std::sqrt(a * a + b * b) * g.scale + g.delta, peak));
        }
    }
}

void copy_band(const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const bool same_layout = src.step == 1 && dst.step == 1 && src.bytes_per_sample == dst.bytes_per_sample &&
                             src.shift == dst.shift;
    for (int y = y0; y < y1; ++y) {
        if (same_layout)
            std::memcpy(dst.data + y * dst.pitch, src.data + y * src.pitch,
                        static_cast<size_t>(src.width) * src.bytes_per_sample);
        else
            for (int x = 0; x < src.width; ++x) dst.write(x, y, src.read(x, y));
    }
}

void fill_band(const PlaneView& dst, int y0, int y1) {
    const int v = 1 << (dst.depth - 1);
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < dst.width; ++x) dst.write(x, y, v);
}

// Worst-case |sum| for 8..16-bit input, to decide whether int32 accumulation is exact.
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

CpuBackend::CpuBackend(int threads) : pool_(threads) {
    for (int i = 0; i < pool_.size(); ++i) scratch_.push_back(std::make_unique<Scratch>());
}

CpuBackend::~CpuBackend() = default;

void CpuBackend::apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, bool allow_separable) {
    const int h = src.height;
    if (h <= 0 || src.width <= 0) return;
    // Bands of at least 16 rows, about 4 per worker so uneven work still balances.
    const int bands = std::max(1, std::min(h / 16, pool_.size() * 4));
    const int peak = src.peak();
    auto band_rows = [&](int b, int& y0, int& y1) {
        y0 = static_cast<int>(static_cast<long long>(h) * b / bands);
        y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / bands);
    };
    std::function<void(int, int)> job;
    switch (op.kind) {
    case OpKind::Copy:
        job = [&](int b, int) { int y0, y1; band_rows(b, y0, y1); copy_band(src, dst, y0, y1); };
        break;
    case OpKind::Fill:
        job = [&](int b, int) { int y0, y1; band_rows(b, y0, y1); fill_band(dst, y0, y1); };
        break;
    case OpKind::Gradient:
        job = [&](int b, int w) {
            int y0, y1;
            band_rows(b, y0, y1);
            gradient_band(op, src, dst, y0, y1, scratch_[w]->i32);
        };
        break;
    case OpKind::Convolve: {
        const ConvolveOp& c = op.conv;
        const bool sep = allow_separable && c.separable();
        job = [&, sep](int b, int w) {
            int y0, y1;
            band_rows(b, y0, y1);
            Scratch& s = *scratch_[w];
            if (sep) {
                if (fits_int32(c.row, c.col, peak)) separable_band<int32_t>(op, src, dst, y0, y1, s.i32);
                else separable_band<int64_t>(op, src, dst, y0, y1, s.i64);
            } else if (!c.integer) {
                direct_band<double>(op, src, dst, y0, y1, s.f64);
            } else if (fits_int32(c.k, peak)) {
                direct_band<int32_t>(op, src, dst, y0, y1, s.i32);
            } else {
                direct_band<int64_t>(op, src, dst, y0, y1, s.i64);
            }
        };
        break;
    }
    }
    pool_.parallel_for(bands, job);
}

}  // namespace vf
