// Separable (rank-1) convolution on 8-bit planar planes whose row taps are bytes (all 0..255, or
// all -128..127): the row pass on the tensor cores' integer products, the column pass in FP32, in
// one kernel through shared memory. Gaussian blurs take it (whole-number taps summing to 1024,
// the largest 128 at sigma 3.2).
//
// In separable_f32.cu's kernel the row pass is two thirds of the multiply-adds (the tile's halo
// rows take it too) and every sample is converted to float before it; here the byte tile goes
// into the products as it is (imma_tile.cuh: a 1-row kernel, its few band fragments held in
// registers for the whole block), with int32 sums, exact, converted to float once. The column
// pass is the same as separable_f32.cu's (FP32, same order of sums, same finish), so the two
// paths give the same bytes.
//
// Block: 16 warps, 128 x 64 outputs, 3 blocks an SM for kernels up to 47 wide (40 registers).
// Row pass: 16-row slabs of the tile's 64 + kh - 1 rows (rounded up), 4 warps across a slab;
// column pass: a thread takes 4 adjacent columns and 4 rows. Faster than the FP32 kernel on the
// Gaussian rows (docs/benchmarks.md, GPU kernels: gaussian s=3.2, `separable-f32` beside `auto`);
// the shapes tried and not kept are listed there.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_limits.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/imma_tile.cuh"
#include "kernels/cuda/device/ldmatrix.cuh"
#include "kernels/cuda/device/byte_plane.cuh"

namespace vf::cuda {
namespace {

constexpr int kWarpsX = 4;                       // row pass: warps across a 16-row slab
constexpr int kOutW = 32 * kWarpsX, kOutH = 64;  // outputs a block
constexpr int kCY = 4;                           // column pass: outputs a thread, 4 across by kCY down
constexpr int kThreads = kOutW / 4 * (kOutH / kCY), kWarps = kThreads / 32;
constexpr int kMinBlocks = 3;                    // blocks an SM at two chunks (registers)
constexpr int kChunk = 8;                        // column taps a step (zero-padded)
constexpr int kMidStride = kOutW + 8;            // floats: the 8 rows of a fragment store fall in 8 bank groups
constexpr int kMaxWidth = 81;                    // 4 chunks

struct ColumnTaps {
    float t[(kMaxTiledKernel + kChunk - 1) / kChunk * kChunk];
};

int padded(int k) { return (k + kChunk - 1) / kChunk * kChunk; }
// Rows of the tile and of the row sums: the column pass's reach, in whole 16-row slabs.
int mid_rows(int kh) { return (kOutH + padded(kh) - 1 + 15) / 16 * 16; }
size_t smem_bytes(int nc, int kh) {
    return static_cast<size_t>(mid_rows(kh)) * (imma::tile_stride(nc) + kMidStride * sizeof(float));
}

// The compiled row-pass shapes: NC chunks, bands MLO..MHI (every odd width from 3 to 81 fits
// one; a kernel 1 wide is never factored, plan.cpp).
struct Shape {
    int nc, m_lo, m_hi;
};
constexpr Shape kShapes[] = {{2, -3, 4}, {3, -3, 8}, {4, -3, 12}};
constexpr int kShapeCount = sizeof kShapes / sizeof kShapes[0];

int shape_for(int kw) {
    if (kw > kMaxWidth) return -1;
    const imma::Geometry g = imma::geometry(kw);
    for (int s = 0; s < kShapeCount; ++s)
        if (kShapes[s].nc == g.chunks && kShapes[s].m_lo <= g.m_lo && kShapes[s].m_hi >= g.m_hi) return s;
    return -1;
}

// 1: the row taps are all 0..255 (unsigned products), 0: all -128..127, -1: neither.
int row_tap_kind(const ConvolveOp& op) {
    bool u8 = true, s8 = true;
    for (int t : op.row) {
        u8 = u8 && t >= 0 && t <= 255;
        s8 = s8 && t >= -128 && t <= 127;
    }
    return u8 ? 1 : (s8 ? 0 : -1);
}

template <int NC, int MLO, int MHI, bool kUnsigned>
__global__ void __launch_bounds__(kThreads, NC == 2 ? kMinBlocks : 2) sep_imma_kernel(DevPlane src, DevPlane dst, const uint2* __restrict__ bands, int pad,
                                                            int kh, int khp, const __grid_constant__ ColumnTaps col, float rdiv,
                                                            float bias, int border) {
    constexpr int kStride = imma::tile_stride(NC);
    const int lane = threadIdx.x, warp = threadIdx.y;
    // One kernel row: its band fragments stay in registers, on their way while the tile is staged.
    uint2 b[NC][4];
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int ob = 0; ob < 4; ++ob)
            b[c][ob] = 4 * c - ob >= MLO && 4 * c - ob <= MHI ? __ldg(bands + (c * 4 + ob) * 32 + lane) : make_uint2(0, 0);

    extern __shared__ __align__(16) uint8_t smem[];
    const int rows = (kOutH + khp - 1 + 15) / 16 * 16;  // mid_rows
    uint8_t* tile = smem;
    float* mid = reinterpret_cast<float*>(smem + rows * kStride);
    const int x0 = blockIdx.x * kOutW, y0 = blockIdx.y * kOutH;
    imma::stage_tile<kThreads>(tile, kStride, src, x0 - pad, y0 - kh / 2, rows, kStride - 16, border);
    __syncthreads();

    // Row pass: a warp takes 16 x 32 row sums at a time (ldmatrix as in imma.cu) and writes
    // them to `mid` as floats (exact: the sums stay below 2^24).
    const int n = lane / 4, t = lane % 4;
    for (int item = warp; item < rows / 16 * kWarpsX; item += kWarps) {
        const int wx = item % kWarpsX, slab = item / kWarpsX;
        const uint8_t* a_row = tile + (slab * 16 + lane % 8 + 8 * (lane / 8 % 2)) * kStride + wx * 32 + 16 * (lane / 16);
        int acc[4][4] = {};
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            uint32_t a[4];
            ldmatrix_x4(a, a_row + 32 * c);
#pragma unroll
            for (int ob = 0; ob < 4; ++ob)
                if (4 * c - ob >= MLO && 4 * c - ob <= MHI) imma::mma_u8<kUnsigned>(acc[ob], a, b[c][ob]);
        }
        float* m = mid + (slab * 16 + n) * kMidStride + wx * 32 + 2 * t;
#pragma unroll
        for (int ob = 0; ob < 4; ++ob) {
            *reinterpret_cast<float2*>(m + 8 * ob) = make_float2(static_cast<float>(acc[ob][0]), static_cast<float>(acc[ob][1]));
            *reinterpret_cast<float2*>(m + 8 * kMidStride + 8 * ob) =
                make_float2(static_cast<float>(acc[ob][2]), static_cast<float>(acc[ob][3]));
        }
    }
    __syncthreads();

    // Column pass: the same sums in the same order as separable_f32.cu's (taps in chunks of
    // kChunk, zero-padded), a thread taking 4 adjacent columns and 4 rows: one 16-byte read of
    // row sums feeds up to 16 multiply-adds, and each row of outputs is one 4-byte store.
    const int tid = warp * 32 + lane, cx = tid % (kOutW / 4) * 4, cy = tid / (kOutW / 4) * kCY;
    float acc[kCY][4] = {};
    for (int jb = 0; jb < khp; jb += kChunk) {
        float k[kChunk];
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) k[jj] = col.t[jb + jj];
#pragma unroll
        for (int i = 0; i < kChunk + kCY - 1; ++i) {
            const float4 v = *reinterpret_cast<const float4*>(mid + (cy + jb + i) * kMidStride + cx);
#pragma unroll
            for (int q = 0; q < kCY; ++q) {
                const int jj = i - q;
                if (jj < 0 || jj >= kChunk) continue;
                acc[q][0] = fmaf(k[jj], v.x, acc[q][0]);
                acc[q][1] = fmaf(k[jj], v.y, acc[q][1]);
                acc[q][2] = fmaf(k[jj], v.z, acc[q][2]);
                acc[q][3] = fmaf(k[jj], v.w, acc[q][3]);
            }
        }
    }
    const int x = x0 + cx;
    if (x >= dst.width) return;
#pragma unroll
    for (int q = 0; q < kCY; ++q) {
        const int y = y0 + cy + q;
        if (y >= dst.height) break;
        // store_sample's rounding: clamp to 0..255 (NaN to 0), truncate.
        int o[4];
#pragma unroll
        for (int p = 0; p < 4; ++p) o[p] = static_cast<int>(fminf(fmaxf(finish_convolve(acc[q][p], rdiv, bias), 0.0f), 255.0f));
        uint8_t* out = dst.data + static_cast<long long>(y) * dst.pitch + x;
        if (x + 4 <= dst.width) {
            *reinterpret_cast<uint32_t*>(out) = pack4_saturated(o[0], o[1], o[2], o[3]);
        } else {
#pragma unroll
            for (int p = 0; p < 4; ++p)
                if (x + p < dst.width) out[p] = static_cast<uint8_t>(o[p]);
        }
    }
}

template <int S, bool kUnsigned>
const void* kernel_of() {
    constexpr Shape sh = kShapes[S];
    return reinterpret_cast<const void*>(sep_imma_kernel<sh.nc, sh.m_lo, sh.m_hi, kUnsigned>);
}

const void* kernel_of(int shape, bool is_unsigned) {
    switch (shape) {
    case 0: return is_unsigned ? kernel_of<0, true>() : kernel_of<0, false>();
    case 1: return is_unsigned ? kernel_of<1, true>() : kernel_of<1, false>();
    default: return is_unsigned ? kernel_of<2, true>() : kernel_of<2, false>();
    }
}

// The compiled shape, the sign of the row taps, and the row taps' band fragments (one kernel row)
// in device memory.
struct SeparableImmaState : RowState {
    int shape = 0;
    bool is_unsigned = false;
    DeviceBuffer bands;
};

template <int S, bool kUnsigned>
void launch_shape(const ConvolveOp& op, const SeparableImmaState& s, const Launch& l) {
    constexpr Shape sh = kShapes[S];
    auto kernel = sep_imma_kernel<sh.nc, sh.m_lo, sh.m_hi, kUnsigned>;
    ColumnTaps col{};
    for (int j = 0; j < op.kh; ++j) col.t[j] = static_cast<float>(op.col[j]);
    const dim3 grid((l.dst.width + kOutW - 1) / kOutW, (l.dst.height + kOutH - 1) / kOutH);
    kernel<<<grid, dim3(32, kWarps), smem_bytes(sh.nc, op.kh), l.stream>>>(
        to_dev(l.src), to_dev(l.dst), reinterpret_cast<const uint2*>(s.bands.data()), imma::geometry(op.kw).pad, op.kh,
        padded(op.kh), col, op.rdiv, op.bias, border_mode(l.border));
}

// The compiled shape that computes op on these planes, or -1 (why says why).
int eligible_shape(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why) {
    auto no = [&](const std::string& reason) {
        if (why) *why = reason;
        return -1;
    };
    if (!op.separable()) return no("the kernel has no rank-1 factorisation in whole numbers");
    if (!imma::byte_planes(src, dst)) return no(imma::kNotBytePlanes);
    if (row_tap_kind(op) < 0) return no("a row tap is not a byte (0..255 or -128..127)");
    long long reach = 0;
    for (int t : op.row) reach += std::abs(t);
    if (reach * 255 >= (1LL << 24)) return no("its row sums could reach 2^24");
    if (op.kh > kMaxTiledKernel) return no("it is taller than " + std::to_string(kMaxTiledKernel));
    const int shape = shape_for(op.kw);
    if (shape < 0) return no("no compiled shape for a kernel " + std::to_string(op.kw) + " wide");
    const DeviceLimits d = device_limits();
    if (d.major < 8) return no(imma::kNoIntegerProducts);
    if (smem_bytes(kShapes[shape].nc, op.kh) > static_cast<size_t>(d.optin_smem)) return no("its tile does not fit in shared memory");
    return shape;
}

template <bool kUnsigned>
void launch(const ConvolveOp& op, const SeparableImmaState& s, const Launch& l) {
    switch (s.shape) {
    case 0: launch_shape<0, kUnsigned>(op, s, l); break;
    case 1: launch_shape<1, kUnsigned>(op, s, l); break;
    default: launch_shape<2, kUnsigned>(op, s, l); break;
    }
}

}  // namespace

bool separable_imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why) {
    return eligible_shape(op, src, dst, why) >= 0;
}

RowStatePtr separable_imma_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx) {
    std::string why;
    const int shape = eligible_shape(op, l.src, l.dst, &why);
    if (shape < 0) throw Error(ErrorCategory::Usage, "separable-imma does not take this filter on this plane: " + why);
    auto s = std::make_unique<SeparableImmaState>();
    s->shape = shape;
    s->is_unsigned = row_tap_kind(op) == 1;
    ctx.raise_shared_memory(kernel_of(shape, s->is_unsigned));
    s->bands = upload(imma::band_fragment_bytes(op.kw, 1, kShapes[shape].nc, [&](int, int j) { return op.row[j]; }));
    s->device_bytes = static_cast<int64_t>(s->bands.size());
    return s;
}

void separable_imma(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const SeparableImmaState& s = state_as<SeparableImmaState>(state);
    if (s.is_unsigned) launch<true>(op, s, l);
    else launch<false>(op, s, l);
    VF_CUDA_CHECK_LAUNCH("sep_imma_kernel");
}

}  // namespace vf::cuda
