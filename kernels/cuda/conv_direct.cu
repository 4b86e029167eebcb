// Direct 2D convolution on the GPU, in three steps of refinement:
//   naive:    one thread per pixel, taps read from global memory, every tap a global load;
//   constant: taps in constant memory (a warp reads the same tap at once: one broadcast);
//   tiled:    the block's input tile and halo staged once in shared memory (loaded by all
//             threads in a strided loop, so a tile may be larger than the block: the sub-block
//             scheme for big kernels), 8 outputs per thread down a column (register blocking:
//             each shared load feeds up to 8 multiply-adds), kernel rows taken 8 at a time;
//             3x3, 5x5 and 7x7 are compiled separately with the taps as kernel parameters
//             (constant bank 0) and every loop unrolled, through a shared-memory tile with
//             4 x 2 outputs per thread (wide_tile.cuh); 3x3 on planar, aligned planes without
//             shared memory, 2 x 8 outputs per thread (strip_rows.cuh), which measured faster;
//             whole-number kernels from 3x3 to 15x15 with byte taps on 8-bit planes with
//             16-byte aligned rows: 16 outputs a thread, DP4A sums and an integer finish
//             (strip16_dp4a.cuh), faster still.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <mutex>
#include <vector>

#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/op_cache.hpp"
#include "kernels/cuda/strip16_dp4a.cuh"
#include "kernels/cuda/strip_dp4a.cuh"
#include "kernels/cuda/strip_rows.cuh"
#include "kernels/cuda/tile_loader.cuh"
#include "kernels/cuda/wide_tile.cuh"

namespace vf::cuda {
namespace {

constexpr int kTX = kBlockX, kTY = kBlockY, kPY = 8;  // block 32x8 threads, tile 32 x 64 outputs
constexpr int kChunk = 8;                  // kernel rows per register-blocked step
constexpr int kArenaFloats = 16000;        // of the 64 KB constant bank

__constant__ float c_taps[kArenaFloats];

// Host side of the constant arena: each kernel's taps are uploaded once, padded with zero rows to
// a multiple of kChunk, and keep their offset for the life of the process (-1: did not fit).
int arena_offset(const ConvolveOp& op) {
    static OpCache<int> cache;
    static int used = 0;  // guarded by the cache's lock, held while make() runs
    return cache.get(op, 0, [&] {
        const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
        std::vector<float> taps(static_cast<size_t>(khp) * op.kw, 0.0f);
        for (int j = 0; j < op.kh; ++j)
            for (int i = 0; i < op.kw; ++i) taps[j * op.kw + i] = static_cast<float>(op.k[j * op.kw + i]);
        if (used + static_cast<int>(taps.size()) > kArenaFloats) return std::make_unique<int>(-1);
        copy_to_symbol_now(c_taps, taps.data(), taps.size() * sizeof(float), used * sizeof(float));
        auto off = std::make_unique<int>(used);
        used += static_cast<int>(taps.size());
        return off;
    });
}

// Device copies of a kernel's taps: float for the naive kernel (and kernels too big for the
// arena), double for non-integer kernels on the exact path. Kept for the life of the process.
template <typename V>
const V* global_taps(const ConvolveOp& op) {
    static OpCache<DeviceBuffer> cache;
    const DeviceBuffer& b = cache.get(op, 0, [&] {
        return upload(std::vector<V>(op.k.begin(), op.k.end()));
    });
    return reinterpret_cast<const V*>(b.data());
}

template <typename T>
__global__ void naive_kernel(DevPlane src, DevPlane dst, const float* __restrict__ taps, int kw, int kh, float rdiv,
                             float bias, int border) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    float acc = 0.0f;
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i)
            acc = fmaf(taps[j * kw + i], load_bordered<T>(src, x + i - kw / 2, y + j - kh / 2, border), acc);
    store_sample<T>(dst, x, y, finish_convolve(acc, rdiv, bias));
}

template <typename T>
__global__ void constant_kernel(DevPlane src, DevPlane dst, int off, int kw, int kh, float rdiv, float bias, int border) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    float acc = 0.0f;
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i)
            acc = fmaf(c_taps[off + j * kw + i], load_bordered<T>(src, x + i - kw / 2, y + j - kh / 2, border), acc);
    store_sample<T>(dst, x, y, finish_convolve(acc, rdiv, bias));
}

template <typename T>
__device__ __forceinline__ void store_column(const DevPlane& dst, int x, int y0, const float* acc, float rdiv, float bias) {
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kPY; ++q)
        if (y0 + q < dst.height) store_sample<T>(dst, x, y0 + q, finish_convolve(acc[q], rdiv, bias));
}

// Any size: taps from the constant arena, kernel rows in chunks of 8 (zero-padded).
template <typename T>
__global__ void __launch_bounds__(kTX* kTY) tiled_kernel(DevPlane src, DevPlane dst, int off, int kw, int kh, int khp,
                                                         float rdiv, float bias, int border) {
    extern __shared__ float tile[];
    const int cols = kTX + kw - 1, rows = kTY * kPY + khp - 1;
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    for (int jb = 0; jb < khp; jb += kChunk) {
        for (int i = 0; i < kw; ++i) {
            float v[kChunk + kPY - 1];
            const float* col = tile + (ty0 + jb) * cols + tx + i;
#pragma unroll
            for (int t = 0; t < kChunk + kPY - 1; ++t) v[t] = col[t * cols];
#pragma unroll
            for (int jj = 0; jj < kChunk; ++jj) {
                const float k = c_taps[off + (jb + jj) * kw + i];
#pragma unroll
                for (int q = 0; q < kPY; ++q) acc[q] = fmaf(k, v[jj + q], acc[q]);
            }
        }
    }
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

// Non-integer kernels of any size: double products and sums in the reference's order (row by
// row, no contraction), taps as doubles from global memory (one broadcast load per tap).
template <typename T>
__global__ void __launch_bounds__(kTX* kTY) tiled_double_kernel(DevPlane src, DevPlane dst, const double* __restrict__ taps,
                                                                int kw, int kh, float rdiv, float bias, int border) {
    extern __shared__ float tile[];
    const int cols = kTX + kw - 1, rows = kTY * kPY + kh - 1;
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - kw / 2, y0 - kh / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    double dacc[kPY] = {};
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i) {
            const double k = taps[j * kw + i];
#pragma unroll
            for (int q = 0; q < kPY; ++q) dacc[q] = __dadd_rn(dacc[q], __dmul_rn(k, tile[(ty0 + q + j) * cols + tx + i]));
        }
    float acc[kPY];
#pragma unroll
    for (int q = 0; q < kPY; ++q) acc[q] = static_cast<float>(dacc[q]);
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

template <int K, typename Acc>
struct SmallTaps {
    Acc v[K * K];
};

// K x K with K in {3, 5, 7}: everything unrolled, taps as kernel parameters. Acc = double for
// non-integer taps: products and sums then round exactly as the CPU reference's (same order,
// no contraction), so ties at .5 go the same way.
template <typename T, int K, typename Acc>
__global__ void __launch_bounds__(kTX* kTY) small_kernel(DevPlane src, DevPlane dst, SmallTaps<K, Acc> taps, float rdiv,
                                                         float bias, int border) {
    constexpr int cols = kTX + K - 1, rows = kTY * kPY + K - 1;
    __shared__ float tile[rows * cols];
    const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY * kPY;
    load_tile<T, float, false>(tile, src, x0 - K / 2, y0 - K / 2, rows, cols, border);
    __syncthreads();
    const int tx = threadIdx.x, ty0 = threadIdx.y * kPY;
    float acc[kPY] = {};
    if constexpr (sizeof(Acc) == sizeof(double)) {
        double dacc[kPY] = {};
#pragma unroll
        for (int j = 0; j < K; ++j)
#pragma unroll
            for (int i = 0; i < K; ++i)
#pragma unroll
                for (int q = 0; q < kPY; ++q)
                    dacc[q] = __dadd_rn(dacc[q], __dmul_rn(taps.v[j * K + i], tile[(ty0 + q + j) * cols + tx + i]));
#pragma unroll
        for (int q = 0; q < kPY; ++q) acc[q] = static_cast<float>(dacc[q]);
    } else {
#pragma unroll
        for (int i = 0; i < K; ++i) {
            float v[K + kPY - 1];
#pragma unroll
            for (int t = 0; t < K + kPY - 1; ++t) v[t] = tile[(ty0 + t) * cols + tx + i];
#pragma unroll
            for (int j = 0; j < K; ++j)
#pragma unroll
                for (int q = 0; q < kPY; ++q) acc[q] = fmaf(taps.v[j * K + i], v[j + q], acc[q]);
        }
    }
    store_column<T>(dst, x0 + tx, y0 + ty0, acc, rdiv, bias);
}

dim3 tiled_grid(const PlaneView& p) {
    return dim3((p.width + kTX - 1) / kTX, (p.height + kTY * kPY - 1) / (kTY * kPY));
}

// Whole-number K x K kernels (K <= 7), memory-bound: 4 x 2 outputs per thread (wide_tile.cuh).
// Input rows are visited once; each feeds the outputs it touches, all indices compile-time.
template <typename T, int K, bool kVec>
__global__ void __launch_bounds__(wide::kTX* wide::kTY) small_wide_kernel(DevPlane src, DevPlane dst, SmallTaps<K, float> taps,
                                                                         float rdiv, float bias, int border) {
    constexpr int R = K / 2, rows = wide::kTileH + K - 1;
    __shared__ __align__(16) float tile[rows * wide::kCols];
    const int x0 = blockIdx.x * wide::kTileW, y0 = blockIdx.y * wide::kTileH;
    wide::load<T, kVec>(tile, src, x0, y0 - R, rows, border);
    __syncthreads();
    const int ty0 = threadIdx.y * wide::kPY;
    float acc[wide::kPY][4] = {};
#pragma unroll
    for (int t = 0; t < wide::kPY + K - 1; ++t) {
        float s[12];
        wide::segment(tile, ty0 + t, s);
#pragma unroll
        for (int q = 0; q < wide::kPY; ++q) {
            const int j = t - q;
            if (j < 0 || j >= K) continue;
#pragma unroll
            for (int i = 0; i < K; ++i)
#pragma unroll
                for (int p = 0; p < 4; ++p) acc[q][p] = fmaf(taps.v[j * K + i], s[p + i - R + 4], acc[q][p]);
        }
    }
    wide::store_block<T, kVec>(dst, x0, y0, [&](int q, int p) { return finish_convolve(acc[q][p], rdiv, bias); });
}

template <typename T, int K, bool kVec>
void launch_wide(const SmallTaps<K, float>& taps, const ConvolveOp& op, const Launch& l) {
    small_wide_kernel<T, K, kVec><<<wide::grid(l.dst), wide::block(), 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.rdiv, op.bias,
                                                               border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("small_wide_kernel");
}

template <int K, typename Acc>
void launch_small_acc(const ConvolveOp& op, const Launch& l) {
    SmallTaps<K, Acc> taps;
    for (int i = 0; i < K * K; ++i) taps.v[i] = static_cast<Acc>(op.k[i]);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        small_kernel<uint8_t, K, Acc><<<tiled_grid(l.dst), block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps,
                                                                                op.rdiv, op.bias, border_mode(l.border));
    else
        small_kernel<uint16_t, K, Acc><<<tiled_grid(l.dst), block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps,
                                                                                 op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("small_kernel");
}

// Planes from this size up take the DP4A path for a 5x5 (between 1080p and 4K: measured at both).
constexpr long long kDp4aFiveByFiveMinPixels = 4'000'000;

// A whole-number K x K kernel for strip::strip_kernel: one sum per output.
template <int K>
struct StripConvolve {
    static constexpr int kSums = 1;
    SmallTaps<K, float> taps;
    float rdiv, bias;
    __host__ __device__ __forceinline__ float tap(int, int j, int i) const { return taps.v[j * K + i]; }
    __device__ __forceinline__ float finish(const float (&sum)[1]) const { return finish_convolve(sum[0], rdiv, bias); }
};

}  // namespace

// The integer finish of a whole-number kernel with byte taps (-128..127) on 8-bit samples
// (strip16_dp4a.cuh), solved once per kernel, rdiv and bias and checked against the float finish
// for every sum the kernel can produce; nullptr when the taps are not bytes or there is none. The
// tap check lives here, in the cache, so the per-frame call does not repeat it.
uint64_t finish_key(const ConvolveOp& op) {
    uint32_t rdiv_bits = 0, bias_bits = 0;
    std::memcpy(&rdiv_bits, &op.rdiv, sizeof rdiv_bits);
    std::memcpy(&bias_bits, &op.bias, sizeof bias_bits);
    return pack(static_cast<int>(rdiv_bits), static_cast<int>(bias_bits));
}

const FixedFinish* fixed_finish_for(const ConvolveOp& op) {
    static OpCache<std::optional<FixedFinish>> cache;
    const std::optional<FixedFinish>& f =
        cache.get(op, finish_key(op), [&] {
            auto none = std::make_unique<std::optional<FixedFinish>>();
            if (!op.integer) return none;
            long long lo = 0, hi = 0;  // the sums' range over samples 0..255
            for (const double t : op.k) {
                if (t < -128 || t > 127) return none;
                (t < 0 ? lo : hi) += static_cast<long long>(t) * 255;
            }
            return std::make_unique<std::optional<FixedFinish>>(solve_fixed_finish(op.rdiv, op.bias, 255, lo, hi));
        });
    return f ? &*f : nullptr;
}

namespace {

// Whole-number taps in -128..127 on 8-bit planes (peak 255) with 16-byte aligned rows (every
// frame vfilter allocates) and a finish with an integer form (fixed_finish_for): 16 outputs a
// thread, DP4A sums and the integer finish (strip16_dp4a.cuh). False, launching nothing, where
// that does not apply.
// Measured on an H100 against the paths below (docs/benchmarks.md, sixth and seventh passes):
// 3x3 1080p 0.0095 -> 0.0066 ms, 5x5 4K 0.0259 -> 0.0167, 7x7 (against the FP32 tile) 1080p
// 0.0145 -> 0.0116 and 4K 0.0342 -> 0.0224, 13x13 4K 0.0661 (tensor cores) -> 0.0536; `auto`
// times it against the tensor cores from 7x7 (the 13x13 at 1080p stays there).
template <int K>
bool try_strip16(const ConvolveOp& op, const Launch& l) {
    if (l.src.bytes_per_sample != 1 || l.dst.peak() != 255 || !strip16::usable(l.src) || !strip16::usable(l.dst))
        return false;
    const FixedFinish* f = fixed_finish_for(op);
    if (!f) return false;
    strip16::launch<K>(l.src, l.dst, [&](int j, int i) { return static_cast<int>(op.k[static_cast<size_t>(j) * K + i]); }, *f,
                       border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (convolution)");
    return true;
}

template <int K>
void launch_small(const ConvolveOp& op, const Launch& l) {
    if (!op.integer) return launch_small_acc<K, double>(op, l);
    if (try_strip16<K>(op, l)) return;
    SmallTaps<K, float> taps;
    for (int i = 0; i < K * K; ++i) taps.v[i] = static_cast<float>(op.k[i]);
    const bool strip_ok = strip::usable(l.src) && strip::usable(l.dst);
    if constexpr (K <= 5) {
        // Byte taps on 8-bit planes: DP4A (strip_dp4a.cuh) for every 3x3, and for a 5x5 on large
        // planes only: there it measured 11% faster than the tile (4K), at 1080p 5% slower (H100).
        const StripConvolve<K> f{taps, op.rdiv, op.bias};
        const bool large = static_cast<long long>(l.dst.width) * l.dst.height >= kDp4aFiveByFiveMinPixels;
        if (strip_ok && l.src.bytes_per_sample == 1 && (K == 3 || large) && strip::byte_taps<K>(f)) {
            strip::launch_dp4a<K, 2>(l.src, l.dst, f, border_mode(l.border), l.stream);
            VF_CUDA_CHECK_LAUNCH("dp4a_kernel (convolution)");
            return;
        }
    }
    if constexpr (K == 3) {
        if (strip_ok) {
            strip::launch<2>(l.src, l.dst, StripConvolve<K>{taps, op.rdiv, op.bias}, border_mode(l.border), l.stream);
            VF_CUDA_CHECK_LAUNCH("strip_kernel (convolution)");
            return;
        }
    }
    const bool vec = wide::vector_ok(l.src) && wide::vector_ok(l.dst);
    if (l.src.bytes_per_sample == 1) {
        if (vec) launch_wide<uint8_t, K, true>(taps, op, l);
        else launch_wide<uint8_t, K, false>(taps, op, l);
    } else {
        if (vec) launch_wide<uint16_t, K, true>(taps, op, l);
        else launch_wide<uint16_t, K, false>(taps, op, l);
    }
}

}  // namespace

void conv_naive(const ConvolveOp& op, const Launch& l) {
    const float* taps = global_taps<float>(op);
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    if (l.src.bytes_per_sample == 1)
        naive_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv,
                                                            op.bias, border_mode(l.border));
    else
        naive_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv,
                                                             op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("naive_kernel");
}

void conv_constant(const ConvolveOp& op, const Launch& l) {
    const int off = arena_offset(op);
    if (off < 0) return conv_naive(op, l);  // arena full: global memory still gives the right answer
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    if (l.src.bytes_per_sample == 1)
        constant_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh, op.rdiv,
                                                               op.bias, border_mode(l.border));
    else
        constant_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh,
                                                                op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("constant_kernel");
}

void conv_tiled(const ConvolveOp& op, const Launch& l) {
    if (op.kw == op.kh) {
        if (op.kw == 3) return launch_small<3>(op, l);
        if (op.kw == 5) return launch_small<5>(op, l);
        if (op.kw == 7) return launch_small<7>(op, l);
        // Up to 15x15 the DP4A strips where they apply (9x9, 11x11, 15x15 tested, not benchmarked).
        if (op.kw == 9 && try_strip16<9>(op, l)) return;
        if (op.kw == 11 && try_strip16<11>(op, l)) return;
        if (op.kw == 13 && try_strip16<13>(op, l)) return;
        if (op.kw == 15 && try_strip16<15>(op, l)) return;
    }
    static std::once_flag raised;
    std::call_once(raised, [] {
        // Kernels up to 127x127 need up to ~120 KB of shared memory per block.
        for (const void* f : {(const void*)tiled_kernel<uint8_t>, (const void*)tiled_kernel<uint16_t>,
                              (const void*)tiled_double_kernel<uint8_t>, (const void*)tiled_double_kernel<uint16_t>})
            VF_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    });
    const dim3 block(kTX, kTY);
    if (!op.integer) {
        const double* taps = global_taps<double>(op);
        const size_t smem = static_cast<size_t>(kTY * kPY + op.kh - 1) * (kTX + op.kw - 1) * sizeof(float);
        if (l.src.bytes_per_sample == 1)
            tiled_double_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
                to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
        else
            tiled_double_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
                to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
        VF_CUDA_CHECK_LAUNCH("tiled_double_kernel");
        return;
    }
    const int off = arena_offset(op);
    if (off < 0) return conv_naive(op, l);
    const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
    const size_t smem = static_cast<size_t>(kTY * kPY + khp - 1) * (kTX + op.kw - 1) * sizeof(float);
    if (l.src.bytes_per_sample == 1)
        tiled_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                           op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    else
        tiled_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                            op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tiled_kernel");
}

}  // namespace vf::cuda
