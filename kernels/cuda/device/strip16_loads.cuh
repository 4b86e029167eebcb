// Loading the input rows of a 16-byte strip (strip16_rows.cuh): the strip and its halo as words
// of four bytes, through the border rule only where the halo lies outside the plane, and the
// halo at the plane's left and right edges built from the strip's own samples.
#pragma once

#include <cstdint>

#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda::strip16 {

constexpr int kV = 16;  // outputs across a thread

// Bytes loaded on either side of a strip for radius R: whole words, 4 up to radius 4, 8 up to 8.
template <int R>
constexpr int kHalo = (R + 3) / 4 * 4;
template <int R>
constexpr int kWords = (kV + 2 * kHalo<R>) / 4;


// H (4 or 8) bytes at p (p aligned to H) into w[0 .. H / 4 - 1].
template <int H, int N>
__device__ __forceinline__ void load_halo(const uint8_t* p, uint32_t (&w)[N], int first) {
    static_assert(H == 4 || H == 8, "radius up to 8");
    if constexpr (H == 4) {
        w[first] = __ldg(reinterpret_cast<const unsigned int*>(p));
    } else {
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
        w[first] = v.x, w[first + 1] = v.y;
    }
}

// 16 read-only bytes at p (16-byte aligned), asking L2 to fetch the 256 bytes around them: the
// next block's strips read the other half (a little faster than a plain __ldg on the 3x3 to 7x7
// and Sobel rows).
__device__ __forceinline__ uint4 load16_l2_256(const uint8_t* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint4 m;
    asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(m.x), "=r"(m.y), "=r"(m.z), "=r"(m.w) : "l"(p));
    return m;
#else
    return __ldg(reinterpret_cast<const uint4*>(p));
#endif
}

// The strip's own 16 bytes at p into w[H / 4 ..].
template <int H, int N>
__device__ __forceinline__ void load_middle(const uint8_t* p, uint32_t (&w)[N]) {
    const uint4 m = load16_l2_256(p);
    w[H / 4] = m.x, w[H / 4 + 1] = m.y, w[H / 4 + 2] = m.z, w[H / 4 + 3] = m.w;
}

// Bytes at - H .. at + 15 + H (at: the strip's first sample in its row), wholly inside the plane.
template <int R>
__device__ __forceinline__ void load_inside(const uint8_t* at, uint32_t (&w)[kWords<R>]) {
    constexpr int H = kHalo<R>;
    load_halo<H>(at - H, w, 0);
    load_middle<H>(at, w);
    load_halo<H>(at + kV, w, H / 4 + 4);
}

// One sample through the border rule (0 outside a zero border).
__device__ __forceinline__ uint32_t sample_at(const uint8_t* row, int x, int width, int border) {
    const int xi = border_index_dev(x, width, border);
    return xi < 0 ? 0u : row[xi];
}

// Sets byte `pos` of a row's words (counted from the first halo byte) to v, a byte; the byte was 0.
template <int N>
__device__ __forceinline__ void put_byte(uint32_t (&w)[N], int pos, uint32_t v) {
    w[pos / 4] |= v << (8 * (pos % 4));
}

template <int R>
struct Words {
    uint32_t w[kWords<R>];
};

// The bytes of a strip that ends past the plane's right edge (widths that are not a multiple of
// 16), x - R .. x + 15 + R one by one through the border rule. Not inlined: only the last strip
// of a row comes here, and inlined it would lengthen every thread's code.
template <int R>
__device__ __noinline__ Words<R> gather(const uint8_t* row, int x, int width, int border) {
    constexpr int H = kHalo<R>;
    Words<R> r{};
#pragma unroll
    for (int s = -R; s < kV + R; ++s) put_byte(r.w, H + s, sample_at(row, x + s, width, border));
    return r;
}

// Whether load_row builds the halo of a strip at the plane's edge from the strip's own samples:
// radius up to 4 (a one-word halo). For 11x11 to 15x15 (two words) it made ptxas spill in the
// rolled strips under their register cap, so those keep byte loads there.
template <int R>
constexpr bool kHaloFromStrip = kHalo<R> == 4;

// The halo of a strip that starts at the plane's left edge (x == 0), from the strip's own 16
// samples (words L .. L + 3 of w, already loaded): samples -H .. -1 are samples H .. 1 (mirror
// and mirror-repeat), sample 0 (replicate) or 0 (zero border). Halo bytes the filter does not
// reach (beyond R) get in-plane samples too, which meet zero taps.
template <int R>
__device__ __forceinline__ void halo_from_strip_left(uint32_t (&w)[kWords<R>], int border) {
    constexpr int L = kHalo<R> / 4;
#pragma unroll
    for (int i = 0; i < L; ++i) {
        const uint32_t mirror = __byte_perm(w[2 * L - 1 - i], w[2 * L - i], 0x1234);
        const uint32_t replicate = __byte_perm(w[L], 0, 0x0000);
        w[i] = border == 0 || border == 4 ? mirror : (border == 1 ? replicate : 0u);
    }
}

// The same at the right edge (x + 16 == width): samples 16 .. 15 + H are samples 14 .. 15 - H
// (mirror), 15 .. 16 - H (mirror-repeat), sample 15 (replicate) or 0.
template <int R>
__device__ __forceinline__ void halo_from_strip_right(uint32_t (&w)[kWords<R>], int border) {
    constexpr int L = kHalo<R> / 4;
#pragma unroll
    for (int i = 0; i < L; ++i) {
        const uint32_t mirror = __byte_perm(w[L + 2 - i], w[L + 3 - i], 0x3456);
        const uint32_t replicate = __byte_perm(w[L + 3], 0, 0x3333);
        const uint32_t repeat = __byte_perm(w[L + 3 - i], 0, 0x0123);
        w[L + 4 + i] = border == 0 ? mirror : border == 1 ? replicate : border == 4 ? repeat : 0u;
    }
}

// Bytes x - H .. x + 15 + H of a row (row == nullptr: a row of zeros, the zero border). Vector
// loads wherever the bytes lie inside the plane. The halo of a strip at the plane's left edge,
// or of one that ends exactly at its right edge (every width that is a multiple of 16), is left
// to edge_halo where kHaloFromStrip holds; byte loads through the border rule remain for a halo
// that reaches past a right edge that is not a multiple of 16, and for the two-word halos.
template <int R>
__device__ __forceinline__ void load_row(const uint8_t* row, int x, int width, int border, uint32_t (&w)[kWords<R>]) {
    constexpr int H = kHalo<R>, L = H / 4;
    if (!row) {
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = 0;
        return;
    }
    if (x + kV > width) {
        const Words<R> g = gather<R>(row, x, width, border);
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = g.w[i];
        return;
    }
    load_middle<H>(row + x, w);
    if (x >= H) {
        load_halo<H>(row + x - H, w, 0);
    } else if (!kHaloFromStrip<R>) {
#pragma unroll
        for (int i = 0; i < L; ++i) w[i] = 0;
#pragma unroll
        for (int s = 1; s <= R; ++s) put_byte(w, H - s, sample_at(row, x - s, width, border));
    }
    if (x + kV + H <= width) {
        load_halo<H>(row + x + kV, w, L + 4);
    } else if (!kHaloFromStrip<R> || x + kV != width) {
#pragma unroll
        for (int i = 0; i < L; ++i) w[L + 4 + i] = 0;
#pragma unroll
        for (int s = 0; s < R; ++s) put_byte(w, H + kV + s, sample_at(row, x + kV + s, width, border));
    }
}

// The halo load_row leaves out, from the strip's own samples: called once the row's loads are
// issued, and after those of the rows loaded with it, so that no load waits for an earlier one's
// data (built as soon as each row was loaded, the halo would make its lane wait for that row
// before the next row's loads go out).
template <int R>
__device__ __forceinline__ void edge_halo(int x, int width, int border, uint32_t (&w)[kWords<R>]) {
    static_assert(kHaloFromStrip<R>, "two-word halos are loaded byte by byte");
    if (x + kV > width) return;  // gathered whole
    if (x < kHalo<R>) halo_from_strip_left<R>(w, border);
    if (x + kV == width) halo_from_strip_right<R>(w, border);
}

// Input row y (any y: through the border rule when kCheckY) of the strip at x: bytes x - H ..
// x + 15 + H. kCheckX / kCheckY: the block's columns / rows (with their halo) may reach past the
// plane. Blocks wholly inside take neither check: three plain loads a row. At the edges only the
// lanes whose halo lies outside pay for the border rule (load_row).
// `row` is row y's start where y lies inside the plane (callers step it by the pitch: an add,
// where y * pitch would take the multiply-add pipe the DP4A need).
template <int R, bool kCheckX, bool kCheckY>
__device__ __forceinline__ void source_row(const DevPlane& src, const uint8_t* row, int x, int y, int border,
                                           uint32_t (&w)[kWords<R>]) {
    if (kCheckY) {
        const int sy = border_index_dev(y, src.height, border);
        row = sy >= 0 ? src.data + static_cast<long long>(sy) * src.pitch : nullptr;
    }
    if (kCheckX) {
        load_row<R>(row, x, src.width, border, w);
    } else if (kCheckY && !row) {
#pragma unroll
        for (int i = 0; i < kWords<R>; ++i) w[i] = 0;
    } else {
        load_inside<R>(row + x, w);
    }
}

}  // namespace vf::cuda::strip16
