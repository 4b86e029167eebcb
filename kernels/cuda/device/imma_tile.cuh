// The pieces the two kernels on the tensor cores' integer products share (imma.cu: dense
// kernels; separable_imma.cu: the row pass of separable ones): where a kernel width puts a
// byte tile and which Toeplitz bands it needs, staging the tile, the band fragments as each lane
// holds them, and the product itself.
//
// For one kernel row, a warp's 16 x 32 outputs are matrix products with int32 sums: A is 16 rows
// of 32 tile columns (a "chunk", read with ldmatrix), B a 32 x 8 Toeplitz band of the row's taps,
// B[k][n] = tap(d + k - n), and output block ob (8 columns) meets chunk c through the band at
// offset d = 8 m - delta, m = 4 c - ob.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda::imma {

// The planes both kernels take: 8-bit planar, unshifted, rows 16-byte aligned (every frame
// vfilter allocates), so that the tile is staged 16 bytes at a time.
inline bool byte_planes(const PlaneView& src, const PlaneView& dst) {
    return src.bytes_per_sample == 1 && dst.peak() == 255 && src.shift == 0 && byte_rows_16(src) && byte_rows_16(dst);
}
constexpr const char* kNotBytePlanes = "not an 8-bit planar plane with 16-byte aligned rows";
constexpr const char* kNoIntegerProducts =
    "this GPU's tensor cores lack the integer products used (compute capability below 8.0)";

// Where a kernel width puts the tile and which bands it needs.
struct Geometry {
    int pad;         // tile columns left of the block's first output: the radius rounded up to 16
    int delta;       // pad - radius
    int chunks;      // 32-column chunks a warp reads
    int m_lo, m_hi;  // band offsets m (d = 8 m - delta) that hold a tap
};

inline Geometry geometry(int kw) {
    const int r = kw / 2;
    Geometry g;
    g.pad = (r + 15) / 16 * 16;
    g.delta = g.pad - r;
    // A warp's outputs 0..31 read tile columns delta .. delta + 31 + 2r (from its first column).
    g.chunks = (g.delta + 31 + 2 * r) / 32 + 1;
    // Band d + k - n covers taps d - 7 .. d + 31: some lie in 0..kw-1 when -31 <= d <= kw + 6.
    g.m_lo = -((31 - g.delta) / 8);
    g.m_hi = (kw + 6 + g.delta) / 8;
    return g;
}

// Tile row stride in bytes for a block of 4 warps across reading NC chunks each: every chunk a
// warp reads, plus 16 bytes so that the row count of 16-byte units is odd and the 8 rows one
// ldmatrix phase reads fall in 8 different groups of 4 banks.
__host__ __device__ constexpr int tile_stride(int nc) { return 96 + 32 * nc + 16; }

// The B fragments of every kernel row, chunk and output block, as each lane holds them: lane l
// (column n = l / 4, t = l % 4) holds B[4t + q][n] in byte q of its first word and
// B[16 + 4t + q][n] in its second. Layout [row][chunk][block][lane], 8 bytes a lane, so a warp
// reads 256 contiguous bytes a fragment; blocks whose band holds no tap are zero. tap(i, j): kernel
// row i, column j, a byte (signed or unsigned: stored as its low 8 bits).
template <typename TapFn>
std::vector<uint8_t> band_fragment_bytes(int kw, int kh, int nc, TapFn tap) {
    const Geometry g = geometry(kw);
    std::vector<uint8_t> f(static_cast<size_t>(kh) * nc * 4 * 32 * 8, 0);
    for (int i = 0; i < kh; ++i)
        for (int c = 0; c < nc; ++c)
            for (int ob = 0; ob < 4; ++ob)
                for (int lane = 0; lane < 32; ++lane)
                    for (int k = 0; k < 32; ++k) {
                        const int n = lane / 4, t = lane % 4;
                        if (k % 16 / 4 != t) continue;  // the lane holds k = 4t..4t+3 and 16+4t..16+4t+3
                        const int j = 8 * (4 * c - ob) - g.delta + k - n;
                        if (j < 0 || j >= kw) continue;
                        const size_t at = (((static_cast<size_t>(i) * nc + c) * 4 + ob) * 32 + lane) * 8 + (k / 16) * 4 + k % 4;
                        f[at] = static_cast<uint8_t>(tap(i, j) & 0xFF);
                    }
    return f;
}

// border_index_dev, with the usual case of a mirror (one reflection: the tile's halo is narrower
// than the plane) in a few instructions instead of a division.
__device__ __forceinline__ int border_quick(int i, int n, int mode) {
    if (i >= 0 && i < n) return i;
    if (mode == 0) {
        const int m = i < 0 ? -i : 2 * (n - 1) - i;
        if (m >= 0 && m < n) return m;
    }
    return border_index_dev(i, n, mode);
}

// 16 bytes from global to shared memory without passing through registers (cp.async, compute
// capability 8.0 and up): the thread does not wait for them, so all of its loads are in flight at
// once; cp_async_wait_all before the barrier that publishes them.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem))),
                 "l"(gmem));
#else
    *reinterpret_cast<uint4*>(smem) = __ldg(reinterpret_cast<const uint4*>(gmem));
#endif
}

__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Rows oy .. oy + rows - 1 and columns ox .. ox + cols - 1 (cols a multiple of 16) of the plane,
// borders applied, into the tile, by a block of kThreads threads (blockDim.x 32): 16 bytes a
// thread at a time wherever they lie inside the plane (their row through the border rule), by
// cp.async, so that a thread's loads are all in flight together (loaded through registers, each
// would be waited for in turn);
// byte by byte only for the 16-byte units that reach past its left or right edge. Returns once
// the thread's own copies have landed: the caller's barrier then publishes the whole tile.
// kAsync false: each unit through registers (imma.cu: with cp.async ptxas gave its kernels
// fewer registers and spills).
template <int kThreads, bool kAsync = true>
__device__ __forceinline__ void stage_tile(uint8_t* tile, int stride, const DevPlane& src, int ox, int oy, int rows,
                                           int cols, int border) {
    const int units = cols / 16, tid = threadIdx.y * 32 + threadIdx.x;
    for (int q = tid; q < rows * units; q += kThreads) {
        const int r = q / units, u = q - r * units, x = ox + 16 * u;
        const int sy = border_quick(oy + r, src.height, border);
        uint8_t* to = tile + r * stride + 16 * u;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (sy >= 0) {
            const uint8_t* row = src.data + static_cast<long long>(sy) * src.pitch;
            if (x >= 0 && x + 16 <= src.width) {
                if constexpr (kAsync) {
                    cp_async16(to, row + x);
                    continue;
                }
                v = __ldg(reinterpret_cast<const uint4*>(row + x));
            } else {
                uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
                for (int p = 0; p < 16; ++p) {
                    const int sx = border_quick(x + p, src.width, border);
                    if (sx >= 0) w[p / 4] |= static_cast<uint32_t>(row[sx]) << (8 * (p % 4));
                }
                v = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
        *reinterpret_cast<uint4*>(to) = v;
    }
    if (kAsync) cp_async_wait_all();
}

// d += A (16 x 32 unsigned bytes, row-major) x B (32 x 8 bytes: signed, or unsigned when
// kUnsignedB), int32 sums.
template <bool kUnsignedB = false>
__device__ __forceinline__ void mma_u8(int (&d)[4], const uint32_t (&a)[4], uint2 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (kUnsignedB)
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
    else
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
#endif
}

}  // namespace vf::cuda::imma
