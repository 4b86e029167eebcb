// Dense convolution on the tensor cores, for whole-number kernels of 7x7 and up.
//
// For one kernel row i, a warp's 16 x 16 outputs are a matrix product: C += A_i x B_i, where
// A_i is a 16 x 16 window of the input tile (16 output rows shifted down by i, 16 input columns)
// and B_i a 16 x 16 Toeplitz matrix of the row's taps, B_i[k][n] = tap(i, 16c + k - n) (zero
// outside the kernel): input column k of chunk c feeds output column n through tap k - n. A warp
// covers the 15 + kw input columns its outputs need in ceil((15 + kw) / 16) chunks, so a kernel
// row costs that many 16x16x16 products per 256 outputs. The products waste the zeros of the
// band (about 2x at 13x13, 1.5x at 27x27), but the tensor cores do 16 times the multiply-adds of
// the FP32 units, so it is far ahead of the FP32 direct kernel and of the FFT up to ~31x31.
//
// Exact: samples (up to 10 bits) and taps (whole numbers within +-2048) are exact in half
// precision, every product is exact, and the FP32 accumulator sums whole numbers exactly while
// |sum| < 2^24, which eligible() guarantees from the taps and the peak sample. The sum is then
// finished as every backend does, so the output equals the CPU reference's bit for bit.
//
// Block: 8 warps, 4 across (16 columns each) by 2 down (kMT x 16 rows each): 64 x (32 kMT)
// outputs. Shared memory: the half-precision input tile with its halo, the Toeplitz matrices of
// every kernel row (built once per kernel on the host), and a 16 x 16 float scratch per warp for
// the epilogue (the accumulator's layout is opaque).
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/conv_kernels.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_plane.cuh"
#include "kernels/cuda/op_cache.hpp"
#include "kernels/cuda/tile_loader.cuh"

namespace vf::cuda {
namespace {

constexpr int kWarpsX = 4, kWarpsY = 2;
constexpr int kMT = 2;                                // 16-row output blocks per warp
constexpr int kOutW = kWarpsX * 16;                   // 64 outputs across
constexpr int kOutH = kWarpsY * kMT * 16;             // 64 outputs down
constexpr int kMaxTap = 2048;                         // whole numbers up to here are exact in half

__host__ __device__ inline int chunks(int kw) { return (15 + kw + 15) / 16; }
// Tile row stride in halves: every chunk of every warp inside, a multiple of 16 (32-byte aligned
// fragments), and not a multiple of 64, so the 16 rows of a fragment start in different banks.
__host__ __device__ inline int tile_stride(int kw) {
    const int s = (kOutW - 16) + 16 * chunks(kw);
    return s % 64 == 0 ? s + 16 : s;
}
size_t tile_bytes(int kw, int kh) { return static_cast<size_t>(kOutH + kh - 1) * tile_stride(kw) * sizeof(__half); }
size_t toeplitz_bytes(int kw, int kh) { return static_cast<size_t>(kh) * chunks(kw) * 256 * sizeof(__half); }
size_t scratch_bytes() { return static_cast<size_t>(kWarpsX * kWarpsY) * 256 * sizeof(float); }
size_t smem_bytes(int kw, int kh) { return toeplitz_bytes(kw, kh) + tile_bytes(kw, kh) + scratch_bytes(); }

// The Toeplitz matrices of every kernel row, row-major 16 x 16 each, in device memory.
const __half* toeplitz(const ConvolveOp& op) {
    static OpCache<DeviceBuffer> cache;
    const DeviceBuffer& b = cache.get(op, 0, [&] {
        const int nc = chunks(op.kw);
        std::vector<__half> m(static_cast<size_t>(op.kh) * nc * 256, __float2half(0.0f));
        for (int i = 0; i < op.kh; ++i)
            for (int c = 0; c < nc; ++c)
                for (int k = 0; k < 16; ++k)
                    for (int n = 0; n < 16; ++n) {
                        const int j = 16 * c + k - n;
                        if (j >= 0 && j < op.kw)
                            m[((static_cast<size_t>(i) * nc + c) * 16 + k) * 16 + n] =
                                __float2half(static_cast<float>(op.k[static_cast<size_t>(i) * op.kw + j]));
                    }
        auto buf = std::make_unique<DeviceBuffer>(m.size() * sizeof(__half));
        VF_CUDA_CHECK(cudaMemcpy(buf->data(), m.data(), m.size() * sizeof(__half), cudaMemcpyHostToDevice));
        return buf;
    });
    return reinterpret_cast<const __half*>(b.data());
}

template <typename T>
__global__ void __launch_bounds__(kBlockX* kBlockY) tensor_kernel(DevPlane src, DevPlane dst, const __half* __restrict__ bmat,
                                                                  int kw, int kh, float rdiv, float bias, int border) {
#if __CUDA_ARCH__ >= 700
    using namespace nvcuda;
    extern __shared__ __align__(32) unsigned char smem[];
    const int nc = chunks(kw), stride = tile_stride(kw);
    __half* bs = reinterpret_cast<__half*>(smem);
    __half* tile = bs + kh * nc * 256;
    float* scratch = reinterpret_cast<float*>(tile + (kOutH + kh - 1) * stride);

    // The Toeplitz matrices, 16 bytes a thread at a time (their size is a multiple of 512 bytes).
    const int tid = threadIdx.y * kBlockX + threadIdx.x;
    const int4* from = reinterpret_cast<const int4*>(bmat);
    int4* to = reinterpret_cast<int4*>(bs);
    for (int q = tid; q < kh * nc * 32; q += kBlockX * kBlockY) to[q] = __ldg(from + q);
    const int x0 = blockIdx.x * kOutW, y0 = blockIdx.y * kOutH;
    load_tile<T, __half>(tile, src, x0 - kw / 2, y0 - kh / 2, kOutH + kh - 1, stride, border);
    __syncthreads();

    const int warp = threadIdx.y, wx = warp % kWarpsX, wy = warp / kWarpsX;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kMT];
#pragma unroll
    for (int m = 0; m < kMT; ++m) wmma::fill_fragment(acc[m], 0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    const __half* warp_tile = tile + (wy * kMT * 16) * stride + wx * 16;
    for (int i = 0; i < kh; ++i)
        for (int c = 0; c < nc; ++c) {
            wmma::load_matrix_sync(b, bs + (i * nc + c) * 256, 16);
#pragma unroll
            for (int m = 0; m < kMT; ++m) {
                wmma::load_matrix_sync(a, warp_tile + (m * 16 + i) * stride + 16 * c, stride);
                wmma::mma_sync(acc[m], a, b, acc[m]);
            }
        }

    // Epilogue: through the warp's scratch, each lane finishing 8 outputs of a row.
    float* mine = scratch + warp * 256;
    const int lane = threadIdx.x, r = lane / 2, c0 = (lane % 2) * 8;
    const int x = x0 + wx * 16 + c0;
#pragma unroll
    for (int m = 0; m < kMT; ++m) {
        wmma::store_matrix_sync(mine, acc[m], 16, wmma::mem_row_major);
        __syncwarp();
        const int y = y0 + (wy * kMT + m) * 16 + r;
        if (y < dst.height)
#pragma unroll
            for (int q = 0; q < 8; ++q)
                if (x + q < dst.width) store_sample<T>(dst, x + q, y, finish_convolve(mine[r * 16 + c0 + q], rdiv, bias));
        __syncwarp();
    }
#endif
}

}  // namespace

bool tensor_eligible(const ConvolveOp& op, const PlaneView& src, std::string* why) {
    auto no = [&](const std::string& reason) {
        if (why) *why = reason;
        return false;
    };
    if (!op.integer) return no("its taps are not whole numbers");
    double abs_sum = 0;
    for (double t : op.k) {
        if (std::fabs(t) > kMaxTap) return no("a tap is beyond +-2048 (not exact in half precision)");
        abs_sum += std::fabs(t);
    }
    if (abs_sum * src.peak() >= 16777216.0) return no("its sums could exceed 2^24 (not exact in FP32)");
    int device = 0, major = 0, optin = 0;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    VF_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (major < 7) return no("this GPU has no tensor cores (compute capability below 7.0)");
    if (smem_bytes(op.kw, op.kh) > static_cast<size_t>(optin)) return no("the kernel's matrices do not fit in shared memory");
    return true;
}

void conv_tensor(const ConvolveOp& op, const Launch& l) {
    std::string why;
    if (!tensor_eligible(op, l.src, &why)) throw Error(ErrorCategory::Usage, "--kernel tensor: not for this filter: " + why);
    static std::once_flag raised;
    std::call_once(raised, [] {
        int device = 0, optin = 0;
        VF_CUDA_CHECK(cudaGetDevice(&device));
        VF_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        for (const void* f : {(const void*)tensor_kernel<uint8_t>, (const void*)tensor_kernel<uint16_t>})
            VF_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    });
    const __half* bmat = toeplitz(op);
    const dim3 grid((l.dst.width + kOutW - 1) / kOutW, (l.dst.height + kOutH - 1) / kOutH), block(kBlockX, kBlockY);
    const size_t smem = smem_bytes(op.kw, op.kh);
    if (l.src.bytes_per_sample == 1)
        tensor_kernel<uint8_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), bmat, op.kw, op.kh, op.rdiv,
                                                               op.bias, border_mode(l.border));
    else
        tensor_kernel<uint16_t><<<grid, block, smem, l.stream>>>(to_dev(l.src), to_dev(l.dst), bmat, op.kw, op.kh, op.rdiv,
                                                                op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("tensor_kernel");
}

}  // namespace vf::cuda
