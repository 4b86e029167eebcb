// Direct 2D convolution on the GPU: the variants of the dispatch table's direct family
// (kernels/cuda/dispatch_table.cpp says which runs when):
//   naive:          one thread per pixel, taps read from global memory, every tap a global load;
//   constant:       taps in constant memory (a warp reads the same tap at once: one broadcast);
//   tile, tile-f64: the block's input tile and halo staged once in shared memory (loaded by all
//                   threads in a strided loop, so a tile may be larger than the block), 8 outputs
//                   per thread down a column (each shared load feeds up to 8 multiply-adds),
//                   kernel rows taken 8 at a time; FP32 sums of whole-number taps, double sums
//                   of others;
//   small-tile, small-tile-f64: 3x3, 5x5 and 7x7 compiled separately with the taps as kernel
//                   parameters (constant bank 0) and every loop unrolled, through a shared-memory
//                   tile with 4 x 2 outputs per thread (wide_tile.cuh);
//   strip-f32, strip-dp4a: 3x3 (and 5x5 with byte taps) on planar, aligned planes without shared
//                   memory, 2 x 8 outputs per thread (strip_rows.cuh, strip_dp4a.cuh);
//   strip16-dp4a:   whole-number kernels from 3x3 to 15x15 with byte taps on 8-bit planes with
//                   16-byte aligned rows: 16 outputs a thread, DP4A sums and an integer finish
//                   (strip16_dp4a.cuh).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <mutex>
#include <vector>

#include "kernels/cuda/byte_plane.cuh"
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

namespace {

const FixedFinish* solved_finish(const ConvolveOp& op) {
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

}  // namespace

const FixedFinish* fixed_finish_for(const ConvolveOp& op) {
    // The per-frame path asks twice a launch for the small kernels (the dispatch table's check,
    // then the launch): each thread keeps its last answer for kernels up to 15x15, found again
    // without the cache's lock by comparing the taps, divisor and bias themselves.
    if (op.kw * op.kh > 15 * 15) return solved_finish(op);
    struct Last {
        std::vector<double> k;
        int kw = 0, kh = 0;
        uint64_t finish = 0;
        const FixedFinish* result = nullptr;
    };
    thread_local Last last;
    const uint64_t finish = finish_key(op);
    if (last.kw == op.kw && last.kh == op.kh && last.finish == finish && last.k == op.k) return last.result;
    last.result = solved_finish(op);
    last.k = op.k;
    last.kw = op.kw;
    last.kh = op.kh;
    last.finish = finish;
    return last.result;
}

namespace {

template <int K>
void launch_strip16(const ConvolveOp& op, const Launch& l) {
    strip16::launch<K>(l.src, l.dst, [&](int j, int i) { return static_cast<int>(op.k[static_cast<size_t>(j) * K + i]); },
                       *fixed_finish_for(op), border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (convolution)");
}

template <int K>
SmallTaps<K, float> float_taps(const ConvolveOp& op) {
    SmallTaps<K, float> taps;
    for (int i = 0; i < K * K; ++i) taps.v[i] = static_cast<float>(op.k[i]);
    return taps;
}

template <int K>
void launch_strip_dp4a(const ConvolveOp& op, const Launch& l) {
    strip::launch_dp4a<K, 2>(l.src, l.dst, StripConvolve<K>{float_taps<K>(op), op.rdiv, op.bias}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("dp4a_kernel (convolution)");
}

template <int K>
void launch_small_wide(const ConvolveOp& op, const Launch& l) {
    const SmallTaps<K, float> taps = float_taps<K>(op);
    const bool vec = wide::vector_ok(l.src) && wide::vector_ok(l.dst);
    if (l.src.bytes_per_sample == 1) {
        if (vec) launch_wide<uint8_t, K, true>(taps, op, l);
        else launch_wide<uint8_t, K, false>(taps, op, l);
    } else {
        if (vec) launch_wide<uint16_t, K, true>(taps, op, l);
        else launch_wide<uint16_t, K, false>(taps, op, l);
    }
}

bool small_square(const ConvolveOp& op) { return op.kw == op.kh && (op.kw == 3 || op.kw == 5 || op.kw == 7); }

}  // namespace

bool small_tile_f64_takes(const ConvolveOp& op, const Launch&) { return small_square(op) && !op.integer; }

void small_tile_f64(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) return launch_small_acc<3, double>(op, l);
    if (op.kw == 5) return launch_small_acc<5, double>(op, l);
    return launch_small_acc<7, double>(op, l);
}

bool strip16_dp4a_takes(const ConvolveOp& op, const Launch& l) {
    return op.kw == op.kh && op.kw % 2 == 1 && op.kw >= 3 && op.kw <= 15 && l.src.bytes_per_sample == 1 && l.dst.peak() == 255 &&
           byte_rows_16(l.src) && byte_rows_16(l.dst) && fixed_finish_for(op) != nullptr;
}

void strip16_dp4a(const ConvolveOp& op, const Launch& l) {
    switch (op.kw) {
    case 3: return launch_strip16<3>(op, l);
    case 5: return launch_strip16<5>(op, l);
    case 7: return launch_strip16<7>(op, l);
    case 9: return launch_strip16<9>(op, l);
    case 11: return launch_strip16<11>(op, l);
    case 13: return launch_strip16<13>(op, l);
    default: return launch_strip16<15>(op, l);
    }
}

bool strip_dp4a_takes(const ConvolveOp& op, const Launch& l) {
    if (op.kw != op.kh || !op.integer || !strip::usable(l.src) || !strip::usable(l.dst) || l.src.bytes_per_sample != 1) return false;
    if (op.kw == 3) return strip::byte_taps<3>(StripConvolve<3>{float_taps<3>(op), op.rdiv, op.bias});
    return op.kw == 5 && strip::byte_taps<5>(StripConvolve<5>{float_taps<5>(op), op.rdiv, op.bias});
}

void strip_dp4a(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) launch_strip_dp4a<3>(op, l);
    else launch_strip_dp4a<5>(op, l);
}

bool strip_f32_takes(const ConvolveOp& op, const Launch& l) {
    return op.kw == 3 && op.kh == 3 && op.integer && strip::usable(l.src) && strip::usable(l.dst);
}

void strip_f32(const ConvolveOp& op, const Launch& l) {
    strip::launch<2>(l.src, l.dst, StripConvolve<3>{float_taps<3>(op), op.rdiv, op.bias}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip_kernel (convolution)");
}

bool small_tile_takes(const ConvolveOp& op, const Launch&) { return small_square(op) && op.integer; }

void small_tile(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) return launch_small_wide<3>(op, l);
    if (op.kw == 5) return launch_small_wide<5>(op, l);
    return launch_small_wide<7>(op, l);
}

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

namespace {

void raise_tile_smem() {
    static std::once_flag raised;
    std::call_once(raised, [] {
        // Kernels up to 127x127 need up to ~120 KB of shared memory per block.
        for (const void* f : {(const void*)tiled_kernel<uint8_t>, (const void*)tiled_kernel<uint16_t>,
                              (const void*)tiled_double_kernel<uint8_t>, (const void*)tiled_double_kernel<uint16_t>})
            VF_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    });
}

}  // namespace

void tile_f64(const ConvolveOp& op, const Launch& l) {
    raise_tile_smem();
    const double* taps = global_taps<double>(op);
    const size_t smem = static_cast<size_t>(kTY * kPY + op.kh - 1) * (kTX + op.kw - 1) * sizeof(float);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        tiled_double_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
            to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
    else
        tiled_double_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(
            to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tiled_double_kernel");
}

void tile(const ConvolveOp& op, const Launch& l) {
    raise_tile_smem();
    const int off = arena_offset(op);
    if (off < 0) return conv_naive(op, l);  // the constant arena is full: global memory gives the same answer
    const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
    const size_t smem = static_cast<size_t>(kTY * kPY + khp - 1) * (kTX + op.kw - 1) * sizeof(float);
    const dim3 block(kTX, kTY);
    if (l.src.bytes_per_sample == 1)
        tiled_kernel<uint8_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                           op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    else
        tiled_kernel<uint16_t><<<tiled_grid(l.dst), block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw,
                                                                            op.kh, khp, op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tiled_kernel");
}

}  // namespace vf::cuda
