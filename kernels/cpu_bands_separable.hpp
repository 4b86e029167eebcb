// Separable convolution bands on the CPU: the row pass into a ring of rows, then the column pass,
// with 16-bit multiply-adds for symmetric taps where AVX2 is there. Included by cpu_bands_impl.hpp
// with VF_CPU_NS set (cpu_bands.hpp). Every loop over x is written so the compiler can vectorise it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kernels/cpu_bands_rows.hpp"

namespace vf {
namespace VF_CPU_NS {
namespace {

// True when every entry equals the first: a box, summed with a sliding window.
bool uniform(const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [&](int x) { return x == v[0]; });
}

// v without the zeros it has at both ends (as many from each end, so the centre stays the centre).
std::vector<int> trim_zero_ends(const std::vector<int>& v) {
    size_t t = 0;
    while (2 * t + 1 < v.size() && v[t] == 0 && v[v.size() - 1 - t] == 0) ++t;
    return std::vector<int>(v.begin() + static_cast<std::ptrdiff_t>(t), v.end() - static_cast<std::ptrdiff_t>(t));
}

#if defined(__AVX2__)
// True when every tap fits vpmaddwd's signed 16 bits.
bool int16_taps(const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [](int k) { return k > -32768 && k < 32768; });
}
#endif

bool symmetric(const std::vector<int>& v) {
    for (size_t i = 0; i < v.size() / 2; ++i)
        if (v[i] != v[v.size() - 1 - i]) return false;
    return true;
}

#if defined(__AVX2__)
// A symmetric tap vector (2r + 1 taps, all |tap| < 2^15) for 16-bit multiply-adds: the mirrored
// pair sums of two terms are interleaved and vpmaddwd multiplies and adds both products into
// 32-bit lanes, 16 products per instruction. Terms: the r mirrored pairs (t = 0 .. r-1) and the
// centre (t = r), two at a time; with r odd the last pair goes with the centre, with r even the
// centre goes with a zero. Whole numbers: the sums are the plain loop's to the bit.
class MaddTaps {
public:
    MaddTaps(const int32_t* taps, int r) : r_(r), whole_(r / 2), last_(r % 2 ? r - 1 : r) {
        for (int i = 0; i < whole_; ++i) pair_[i] = pack(taps[2 * i], taps[2 * i + 1]);
        last_pair_ = r % 2 ? pack(taps[last_], taps[r]) : pack(taps[r], 0);
    }

    // out[0..15] = the sums for 16 outputs; at(t): those outputs' samples under tap t (t in
    // 0 .. 2r) as 16 int16 lanes, mirrored pairs summing to at most 32767.
    template <typename At>
    void sum16(At&& at, int32_t* out) const {
        const int k = 2 * r_ + 1;
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        auto add = [&](const __m256i& va, const __m256i& vb, const __m256i& taps) {
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(va, vb), taps));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(va, vb), taps));
        };
        for (int i = 0; i < whole_; ++i) {
            const int t = 2 * i;
            add(_mm256_add_epi16(at(t), at(k - 1 - t)), _mm256_add_epi16(at(t + 1), at(k - 2 - t)), pair_[i]);
        }
        const __m256i centre = at(r_);
        if (r_ % 2) add(_mm256_add_epi16(at(last_), at(k - 1 - last_)), centre, last_pair_);
        else add(centre, _mm256_setzero_si256(), last_pair_);
        // unpack works per 128-bit lane: lo holds outputs 0..3 and 8..11, hi 4..7 and 12..15.
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }

private:
    static __m256i pack(int32_t a, int32_t b) {
        return _mm256_set1_epi32(static_cast<int32_t>((static_cast<uint32_t>(b) << 16) | (static_cast<uint32_t>(a) & 0xffffu)));
    }
    int r_, whole_, last_;
    __m256i pair_[64], last_pair_;
};

// The symmetric row pass of an 8-bit plane: p is the padded row (w + kw - 1 samples); taps:
// row[0..rx] (row[rx] is the centre). Where the plain loop does 8 products with a load and a
// store of the output per tap, vpmaddwd does 16 (MaddTaps).
void symmetric_row_madd(const int16_t* p, int w, int kw, const int32_t* row, int32_t* out) {
    const int rx = kw / 2;
    const MaddTaps taps(row, rx);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        const int16_t* q = p + x;
        taps.sum16([q](int t) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + t)); }, out + x);
    }
    for (; x < w; ++x) {
        int32_t v = row[rx] * p[x + rx];
        for (int i = 0; i < rx; ++i) v += row[i] * (p[x + i] + p[x + kw - 1 - i]);
        out[x] = v;
    }
}

// The symmetric column pass read straight from the plane's rows, with 16-bit multiply-adds
// (MaddTaps): out[x] = sum_j col[j] * rows[j][x] for x in [0, w). It reads the samples
// themselves, a quarter (8-bit) or half (16-bit) of the bytes of a column pass over 32-bit row
// sums. rows[j]: the source row of tap j (a row of zeros for the zero border); T is uint8_t or
// uint16_t (shifted right by `shift`); mirrored pairs of samples must fit int16.
template <typename T>
void symmetric_column_madd(const T* const* rows, int kh, const int32_t* col, int w, int shift, int32_t* out) {
    const int ry = kh / 2;
    const MaddTaps taps(col, ry);
    const __m128i count = _mm_cvtsi32_si128(shift);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        taps.sum16(
            [&](int t) {  // 16 samples as int16
                const T* q = rows[t] + x;
                if constexpr (sizeof(T) == 1)
                    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
                else
                    return _mm256_srl_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)), count);
            },
            out + x);
    }
    for (; x < w; ++x) {
        auto at = [&](int j) { return static_cast<int32_t>(rows[j][x] >> shift); };
        int32_t v = col[ry] * at(ry);
        for (int j = 0; j < ry; ++j) v += col[j] * (at(j) + at(kh - 1 - j));
        out[x] = v;
    }
}

// The symmetric row pass over a padded row of 32-bit column sums (w + kw - 1 values), the sums of
// 32 outputs kept in registers over every tap pair. Wrapping int32 as the plain loop: the same
// sums to the bit.
void symmetric_row_i32(const int32_t* p, int w, int kw, const int32_t* row, int32_t* out) {
    const int rx = kw / 2;
    auto load = [](const int32_t* q) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)); };
    auto term = [&](const __m256i& k, const int32_t* a, const int32_t* b) {
        return _mm256_mullo_epi32(k, _mm256_add_epi32(load(a), load(b)));
    };
    const __m256i kc = _mm256_set1_epi32(row[rx]);
    int x = 0;
    for (; x + 32 <= w; x += 32) {
        const int32_t* m = p + x + rx;
        __m256i s0 = _mm256_mullo_epi32(kc, load(m)), s1 = _mm256_mullo_epi32(kc, load(m + 8));
        __m256i s2 = _mm256_mullo_epi32(kc, load(m + 16)), s3 = _mm256_mullo_epi32(kc, load(m + 24));
        for (int i = 0; i < rx; ++i) {
            const __m256i k = _mm256_set1_epi32(row[i]);
            const int32_t *a = p + x + i, *b = p + x + kw - 1 - i;
            s0 = _mm256_add_epi32(s0, term(k, a, b));
            s1 = _mm256_add_epi32(s1, term(k, a + 8, b + 8));
            s2 = _mm256_add_epi32(s2, term(k, a + 16, b + 16));
            s3 = _mm256_add_epi32(s3, term(k, a + 24, b + 24));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), s0);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x + 8), s1);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x + 16), s2);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x + 24), s3);
    }
    for (; x < w; ++x) {
        uint32_t v = static_cast<uint32_t>(row[rx]) * static_cast<uint32_t>(p[x + rx]);
        for (int i = 0; i < rx; ++i)
            v += static_cast<uint32_t>(row[i]) * (static_cast<uint32_t>(p[x + i]) + static_cast<uint32_t>(p[x + kw - 1 - i]));
        out[x] = static_cast<int32_t>(v);
    }
}

// Rows [y0, y1) of a symmetric separable convolution, columns first (see separable_band).
// sums: w + kw - 1 values; acc: w; zeros: scratch for a row of zeros.
template <typename T>
void columns_first(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1,
                   const std::vector<int32_t>& row, const std::vector<int32_t>& col, int32_t* sums, int32_t* acc,
                   float* vals, std::vector<uint16_t>& zeros) {
    const int w = src.width, kw = static_cast<int>(row.size()), kh = static_cast<int>(col.size());
    const int rx = kw / 2, ry = kh / 2;
    if (zeros.size() < static_cast<size_t>(w) + 16) zeros.assign(static_cast<size_t>(w) + 16, 0);
    const T* zero_row = reinterpret_cast<const T*>(zeros.data());
    const T* rows[255];
    for (int y = y0; y < y1; ++y) {
        for (int j = 0; j < kh; ++j) {
            const int sy = border_index(y + j - ry, src.height, op.border);
            rows[j] = sy < 0 ? zero_row : reinterpret_cast<const T*>(src.data + static_cast<std::ptrdiff_t>(sy) * src.pitch);
        }
        symmetric_column_madd(rows, kh, col.data(), w, src.shift, sums + rx);
        for (int i = 1; i <= rx; ++i) {  // the column sums of the border's columns
            const int l = border_index(-i, w, op.border), r = border_index(w - 1 + i, w, op.border);
            sums[rx - i] = l < 0 ? 0 : sums[rx + l];
            sums[rx + w - 1 + i] = r < 0 ? 0 : sums[rx + r];
        }
        symmetric_row_i32(sums, w, kw, row.data(), acc);
        finish_convolve_row(dst, y, acc, op.conv, vals);
    }
}
#endif

// Row pass into a ring of intermediate rows, then a column pass; whole numbers throughout, so the
// result is exactly the 2D sum. Uniform (box) vectors use running sums: O(1) per pixel.
template <typename Acc>
void separable_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1, std::vector<Acc>& mem,
                    std::vector<float>& vals, std::vector<int16_t>& padded16, std::vector<uint16_t>& zeros) {
    const ConvolveOp& c = op.conv;
    // Zero taps at the ends add nothing: a Gaussian's fixed-point tails round to zero (sigma 3.2:
    // 27 taps, 21 of them non-zero), so both passes leave them out.
    const std::vector<int> row_taps = trim_zero_ends(c.row), col_taps = trim_zero_ends(c.col);
    const int kw = static_cast<int>(row_taps.size()), kh = static_cast<int>(col_taps.size());
    const int w = src.width, rx = kw / 2, ry = kh / 2, len = w + 2 * rx;
    mem.resize(static_cast<size_t>(w) * kh + len + w);
    vals.resize(w);
    Acc* padded = mem.data() + static_cast<size_t>(w) * kh;
    Acc* acc = padded + len;
    RowRing<Acc> ring(mem.data(), kh, w);
    const std::vector<Acc> row(row_taps.begin(), row_taps.end()), col(col_taps.begin(), col_taps.end());
    const bool box_row = uniform(row_taps), box_col = uniform(col_taps);
    // Symmetric taps (every Gaussian): add the mirrored pair first, then multiply once; whole
    // numbers, so the sum is unchanged and half the multiplies go.
    const bool sym_row = symmetric(row_taps), sym_col = symmetric(col_taps);
    // 8-bit samples and 16-bit taps: the row pass can use 16-bit multiply-adds (AVX2 build).
#if defined(__AVX2__)
    const bool madd_row = std::is_same<Acc, int32_t>::value && sym_row && !box_row && src.peak() <= 255 &&
                          kw <= 255 &&
                          int16_taps(row_taps);
#else
    const bool madd_row = false;
#endif
    if (madd_row) padded16.resize(static_cast<size_t>(len) + 16);
#if defined(__AVX2__)
    // Planar samples and symmetric taps on both axes, 16-bit in the columns (every Gaussian): the
    // column pass first, straight from the source rows with 16-bit multiply-adds, then the row
    // pass over one padded row of 32-bit sums that stays in L1. The ring below instead keeps kh
    // rows of 32-bit sums and reads all of them for every output row: 2 to 4 times the bytes.
    if constexpr (std::is_same<Acc, int32_t>::value) {
        const bool madd_col = sym_col && !box_col && kh <= 255 && src.step == 1 && 2 * src.peak() < 32768 &&
                              int16_taps(col_taps);
        if (madd_col && sym_row && !box_row) {
            if (src.bytes_per_sample == 1) columns_first<uint8_t>(op, src, dst, y0, y1, row, col, padded, acc, vals.data(), zeros);
            else columns_first<uint16_t>(op, src, dst, y0, y1, row, col, padded, acc, vals.data(), zeros);
            return;
        }
    }
#else
    (void)zeros;
#endif
    // w and rx by value: a captured reference would let their address escape into RowRing::get,
    // and then no loop below could be vectorised (each store might change w).
    auto fill = [&, w, rx](int logical, Acc* out) {
#if defined(__AVX2__)
        if constexpr (std::is_same<Acc, int32_t>::value) {
            if (madd_row) {
                load_padded_row(src, border_index(logical, src.height, op.border), rx, op.border, padded16.data());
                symmetric_row_madd(padded16.data(), w, kw, row.data(), out);
                return;
            }
        }
#endif
        load_padded_row(src, border_index(logical, src.height, op.border), rx, op.border, padded);
        if (box_row) {
            Acc s = 0;
            for (int i = 0; i < kw; ++i) s += padded[i];
            out[0] = s * row[0];
            for (int x = 1; x < w; ++x) {
                s += padded[x + kw - 1] - padded[x - 1];
                out[x] = s * row[0];
            }
            return;
        }
        std::fill(out, out + w, Acc(0));
        if (sym_row) {
            for (int i = 0; i < rx; ++i) {
                const Acc ki = row[i];
                if (ki == 0) continue;
                const Acc *a = padded + i, *b = padded + kw - 1 - i;
                for (int x = 0; x < w; ++x) out[x] += ki * (a[x] + b[x]);
            }
            const Acc kc = row[rx];
            const Acc* m = padded + rx;
            for (int x = 0; x < w; ++x) out[x] += kc * m[x];
            return;
        }
        for (int i = 0; i < kw; ++i) {
            const Acc ki = row[i];
            if (ki == 0) continue;
            const Acc* pi = padded + i;
            for (int x = 0; x < w; ++x) out[x] += ki * pi[x];
        }
    };
    if (box_col) {
        // Running column sum: add the row entering the window, subtract the one leaving it.
        std::fill(acc, acc + w, Acc(0));
        for (int j = 0; j < kh; ++j) {
            const Acc* r = ring.get(y0 + j - ry, fill);
            for (int x = 0; x < w; ++x) acc[x] += r[x];
        }
        std::vector<Acc> leaving(w);
        for (int y = y0; y < y1; ++y) {
            if (y > y0) {
                const Acc* in = ring.get(y + ry, fill);
                for (int x = 0; x < w; ++x) acc[x] += in[x] - leaving[x];
            }
            const Acc* out_row = ring.get(y - ry, fill);  // still in the ring: it is the oldest
            std::copy(out_row, out_row + w, leaving.begin());
            if (c.divisor > 0) {  // FFmpeg's avgblur: the quotient rounded down
                const Acc d = static_cast<Acc>(c.divisor);
                for (int x = 0; x < w; ++x) {
                    const Acc sum = acc[x] * col[0];
                    vals[x] = sum > 0 ? static_cast<float>(sum / d) : 0.0f;
                }
            } else {
                for (int x = 0; x < w; ++x) vals[x] = static_cast<float>(acc[x] * col[0]) * c.rdiv + c.bias + 0.5f;
            }
            store_row(dst, y, vals.data());
        }
        return;
    }
    for (int y = y0; y < y1; ++y) {
        std::fill(acc, acc + w, Acc(0));
        if (sym_col) {
            for (int j = 0; j < ry; ++j) {
                const Acc kj = col[j];
                if (kj == 0) continue;
                const Acc* a = ring.get(y + j - ry, fill);
                const Acc* b = ring.get(y + ry - j, fill);
                for (int x = 0; x < w; ++x) acc[x] += kj * (a[x] + b[x]);
            }
            const Acc* m = ring.get(y, fill);
            const Acc kc = col[ry];
            for (int x = 0; x < w; ++x) acc[x] += kc * m[x];
        } else {
            for (int j = 0; j < kh; ++j) {
                const Acc kj = col[j];
                if (kj == 0) continue;
                const Acc* r = ring.get(y + j - ry, fill);
                for (int x = 0; x < w; ++x) acc[x] += kj * r[x];
            }
        }
        finish_convolve_row(dst, y, acc, c, vals.data());
    }
}

}  // namespace
}  // namespace VF_CPU_NS
}  // namespace vf
