// Dense convolution on the tensor cores, for whole-number kernels of 7x7 and up.
//
// For one kernel row i, 16 x 16 outputs are a matrix product: C += A_i x B_i, where
// A_i is a 16 x 16 window of the input tile (16 output rows shifted down by i, 16 input columns)
// and B_i a 16 x 16 Toeplitz matrix of the row's taps, B_i[k][n] = tap(i, 16c + k - n) (zero
// outside the kernel): input column k of chunk c feeds output column n through tap k - n. The
// 15 + kw input columns 16 outputs need take ceil((15 + kw) / 16) chunks, so a kernel row costs
// that many 16x16x16 products per 256 outputs. The products waste the zeros of the band (2.5x
// the multiply-adds at 13x13, 1.8x at 27x27), but the tensor cores do 16 times the multiply-adds
// of the FP32 units: measured, it beat the FP32 tiled kernel from 13x13 and the FFT at 27x27,
// not at 63x63 (`auto` times them once per kernel and plane size).
//
// Exact: samples (up to 10 bits) and taps (whole numbers within +-2048) are exact in half
// precision, every product is exact, and the FP32 accumulator sums whole numbers exactly while
// |sum| < 2^24, which tensor_eligible() guarantees from the taps and the peak sample. The sum is then
// finished as every backend does, so the output equals the CPU reference's bit for bit.
//
// Block: 8 warps, 4 across by 2 down, each with 16 rows of 32 outputs (the right 16 through the
// previous chunk's matrix: B is a band, so it is the same one shifted by 16): 128 x 32 outputs.
// Shared memory: the half-precision input tile with its halo and the Toeplitz matrices of every
// kernel row (built once per kernel on the host). Fragments are read with ldmatrix from rows laid
// out so that no read has a bank conflict (the WMMA API's 32-byte alignment rules force them), and
// multiplied with mma.sync m16n8k16 (compute capability 8.0 and up). The block shape is the
// fastest of those tried on the benchmark's dense rows (docs/benchmarks.md).
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_limits.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/ldmatrix.cuh"
#include "kernels/cuda/device/tile_loader.cuh"

namespace vf::cuda {
namespace {

constexpr int kWarpsX = 4, kWarpsY = 2;
constexpr int kMT = 1;                                // 16-row output blocks per warp
constexpr int kOutW = kWarpsX * 32;                   // 128 outputs across (32 a warp)
constexpr int kOutH = kWarpsY * kMT * 16;             // 32 outputs down
constexpr int kMaxChunks = 6;                         // kernels up to 81 wide (chunks(81) == 6)

__host__ __device__ inline int chunks(int kw) { return (15 + kw + 15) / 16; }
// Tile row stride in halves: every chunk of every warp inside (a warp reads chunks + 1 of them),
// and an odd number of 16-byte units, so the 8 rows one ldmatrix phase reads fall in 8
// different groups of 4 banks.
__host__ __device__ inline int tile_stride(int kw) { return (kOutW - 32) + 16 * (chunks(kw) + 1) + 8; }
size_t tile_bytes(int kw, int kh) { return static_cast<size_t>(kOutH + kh - 1) * tile_stride(kw) * sizeof(__half); }
size_t toeplitz_bytes(int kw, int kh) { return static_cast<size_t>(kh) * chunks(kw) * 256 * sizeof(__half); }
size_t smem_bytes(int kw, int kh) { return toeplitz_bytes(kw, kh) + tile_bytes(kw, kh); }

// Where B^T[n][k] of a 16x16 Toeplitz matrix lies (in halves): rows of 16, the two 8-half
// halves of rows 4-7 and 12-15 swapped, so ldmatrix's 8-row phases are free of bank conflicts.
__host__ __device__ inline int bt_index(int n, int k) { return n * 16 + 8 * ((k >> 3) ^ ((n >> 2) & 1)) + (k & 7); }

// The transposed Toeplitz matrices of every kernel row and chunk, B^T[n][k] = tap(i, 16c + k - n),
// in device memory.
DeviceBuffer toeplitz(const ConvolveOp& op) {
    const int nc = chunks(op.kw);
    std::vector<__half> m(static_cast<size_t>(op.kh) * nc * 256, __float2half(0.0f));
    for (int i = 0; i < op.kh; ++i)
        for (int c = 0; c < nc; ++c)
            for (int n = 0; n < 16; ++n)
                for (int k = 0; k < 16; ++k) {
                    const int j = 16 * c + k - n;
                    if (j >= 0 && j < op.kw)
                        m[(static_cast<size_t>(i) * nc + c) * 256 + bt_index(n, k)] =
                            __float2half(static_cast<float>(op.k[static_cast<size_t>(i) * op.kw + j]));
                }
    return upload(m);
}

// d += A (16x16, row-major) x B (16x8), FP32 sums.
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// NC = chunks(kw), a template parameter so the loop over chunks unrolls: over a run-time count
// the loop's branches and address arithmetic, not the tensor cores, bound the kernel.
template <typename T, int NC>
__global__ void __launch_bounds__(kBlockX* kBlockY) tensor_kernel(DevPlane src, DevPlane dst, const __half* __restrict__ bmat,
                                                                  int kw, int kh, float rdiv, float bias, int border) {
#if __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    const int stride = tile_stride(kw);
    __half* bs = reinterpret_cast<__half*>(smem);
    __half* tile = bs + kh * NC * 256;

    // The Toeplitz matrices, 16 bytes a thread at a time (their size is a multiple of 512 bytes).
    const int tid = threadIdx.y * kBlockX + threadIdx.x;
    const int4* from = reinterpret_cast<const int4*>(bmat);
    int4* to = reinterpret_cast<int4*>(bs);
    for (int q = tid; q < kh * NC * 32; q += kBlockX * kBlockY) to[q] = __ldg(from + q);
    const int x0 = blockIdx.x * kOutW, y0 = blockIdx.y * kOutH;
    load_tile<T, __half>(tile, src, x0 - kw / 2, y0 - kh / 2, kOutH + kh - 1, stride, border);
    __syncthreads();

    const int lane = threadIdx.x, warp = threadIdx.y, wx = warp % kWarpsX, wy = warp / kWarpsX;
    // ldmatrix addresses: A's matrices are (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15),
    // (8-15, 8-15); B^T's are (n 0-7, k 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15).
    const __half* a_row = tile + (wy * kMT * 16 + (lane % 8) + 8 * ((lane / 8) % 2)) * stride + wx * 32 + 8 * (lane / 16);
    const int bn = (lane % 8) + 8 * (lane / 16);
    const __half* b_row = bs + bt_index(bn, 8 * ((lane / 8) % 2));
    // A warp's 32 outputs across: columns 0-15 take chunk c through B(i, c), columns 16-31 the
    // same input chunk through B(i, c - 1) (the Toeplitz band shifted by 16), so each A fragment
    // read feeds four products and each B fragment read 2 kMT.
    float d[kMT][4][4] = {};
    for (int i = 0; i < kh; ++i) {
        const __half* a_i = a_row + i * stride;
        const __half* b_i = b_row + i * NC * 256;
        uint32_t prev[4] = {0, 0, 0, 0};
#pragma unroll
        for (int c = 0; c <= NC; ++c) {
            uint32_t cur[4] = {0, 0, 0, 0};
            if (c < NC) ldmatrix_x4(cur, b_i + c * 256);
#pragma unroll
            for (int m = 0; m < kMT; ++m) {
                uint32_t a[4];
                ldmatrix_x4(a, a_i + m * 16 * stride + 16 * c);
                if (c < NC) {
                    mma_16816(d[m][0], a, cur[0], cur[1]);
                    mma_16816(d[m][1], a, cur[2], cur[3]);
                }
                if (c > 0) {
                    mma_16816(d[m][2], a, prev[0], prev[1]);
                    mma_16816(d[m][3], a, prev[2], prev[3]);
                }
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) prev[q] = cur[q];
        }
    }

    // Lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and the next, of each 16x8 block.
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int m = 0; m < kMT; ++m)
#pragma unroll
        for (int nb = 0; nb < 4; ++nb)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int y = y0 + (wy * kMT + m) * 16 + g + 8 * h, x = x0 + wx * 32 + nb * 8 + 2 * t;
                if (y >= dst.height) continue;
                if (x < dst.width) store_sample<T>(dst, x, y, finish_convolve(d[m][nb][2 * h], rdiv, bias));
                if (x + 1 < dst.width) store_sample<T>(dst, x + 1, y, finish_convolve(d[m][nb][2 * h + 1], rdiv, bias));
            }
#endif
}

// The kernel for NC chunks (its shared-memory limit raised when the operation was prepared).
template <typename T, int NC>
void launch_nc(dim3 grid, dim3 block, size_t smem, const Launch& l, const __half* bmat, const ConvolveOp& op) {
    tensor_kernel<T, NC><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), bmat, op.kw, op.kh, op.rdiv, op.bias,
                                                         border_mode(l.border));
}

template <typename T>
void launch_tensor(int nc, dim3 grid, dim3 block, size_t smem, const Launch& l, const __half* bmat, const ConvolveOp& op) {
    switch (nc) {
    case 1: return launch_nc<T, 1>(grid, block, smem, l, bmat, op);
    case 2: return launch_nc<T, 2>(grid, block, smem, l, bmat, op);
    case 3: return launch_nc<T, 3>(grid, block, smem, l, bmat, op);
    case 4: return launch_nc<T, 4>(grid, block, smem, l, bmat, op);
    case 5: return launch_nc<T, 5>(grid, block, smem, l, bmat, op);
    default: return launch_nc<T, 6>(grid, block, smem, l, bmat, op);  // kMaxChunks
    }
}

template <typename T>
const void* kernel_of(int nc) {
    switch (nc) {
    case 1: return reinterpret_cast<const void*>(tensor_kernel<T, 1>);
    case 2: return reinterpret_cast<const void*>(tensor_kernel<T, 2>);
    case 3: return reinterpret_cast<const void*>(tensor_kernel<T, 3>);
    case 4: return reinterpret_cast<const void*>(tensor_kernel<T, 4>);
    case 5: return reinterpret_cast<const void*>(tensor_kernel<T, 5>);
    default: return reinterpret_cast<const void*>(tensor_kernel<T, 6>);
    }
}

}  // namespace

bool tensor_eligible(const ConvolveOp& op, const PlaneView& src, std::string* why) {
    auto no = [&](const std::string& reason) {
        if (why) *why = reason;
        return false;
    };
    const std::string taps = tensor_taps_problem(op, src.peak());
    if (!taps.empty()) return no(taps);
    const DeviceLimits d = device_limits();
    if (d.major < 8) return no("this GPU's tensor cores lack the instructions used (compute capability below 8.0)");
    if (chunks(op.kw) > kMaxChunks || smem_bytes(op.kw, op.kh) > static_cast<size_t>(d.optin_smem))
        return no("the kernel's matrices do not fit in shared memory");
    return true;
}

RowStatePtr tensor_half_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx) {
    std::string why;
    if (!tensor_eligible(op, l.src, &why)) throw Error(ErrorCategory::Usage, "--kernel tensor: not for this filter: " + why);
    ctx.raise_shared_memory(l.src.bytes_per_sample == 1 ? kernel_of<uint8_t>(chunks(op.kw)) : kernel_of<uint16_t>(chunks(op.kw)));
    return std::make_unique<BufferState>(toeplitz(op));
}

void conv_tensor_half(const ConvolveOp& op, const RowState* s, const Launch& l) {
    const __half* bmat = reinterpret_cast<const __half*>(state_as<BufferState>(s).buffer.data());
    const dim3 grid((l.dst.width + kOutW - 1) / kOutW, (l.dst.height + kOutH - 1) / kOutH), block(kBlockX, kBlockY);
    const size_t smem = smem_bytes(op.kw, op.kh);
    const int nc = chunks(op.kw);
    if (l.src.bytes_per_sample == 1)
        launch_tensor<uint8_t>(nc, grid, block, smem, l, bmat, op);
    else
        launch_tensor<uint16_t>(nc, grid, block, smem, l, bmat, op);
    VF_CUDA_CHECK_LAUNCH("tensor_kernel");
}

}  // namespace vf::cuda
