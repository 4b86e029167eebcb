// Dense convolution on the tensor cores' integer products, for whole-number kernels with byte
// taps (-128..127) on 8-bit planar planes with 16-byte aligned rows (every frame vfilter
// allocates): the samples go into the products as they are, bytes, with no conversion.
//
// For one kernel row, a warp's 16 x 32 outputs are matrix products with int32 sums (exact): A is
// 16 rows of 32 input columns (a "chunk", straight from the byte tile in shared memory with
// ldmatrix), B a 32 x 8 Toeplitz band of the row's taps, B[k][n] = tap(i, d + k - n), and each
// product m16n8k32 (mma.sync, compute capability 8.0 and up) gives 8 output columns of the 16
// rows. Output block ob (columns 8 ob .. 8 ob + 7 of the warp) meets chunk c through the band at
// offset d = 8 m - delta, m = 4 c - ob, so a kernel row costs one product per (chunk, block)
// pair whose band holds a tap: 6 for every kernel from 3 to 17 wide, 8 at 27, 12 at 63.
//
// The bands are tables in device memory (256 bytes a warp a fragment), read through L1 one step
// (kernel row and chunk) ahead of their products, so the L1 latency of a fragment is hidden
// behind the products before it, and each feeds MT row tiles. MT is 2 where the plane still gives
// every SM 4 blocks of them, else 1 (row_tiles_for). The finish is FixedFinish where one exists, two outputs saturated and packed
// an instruction.
//
// Faster than the half-precision path, the strips and the FFT from 13x13 (docs/benchmarks.md,
// GPU kernels: dense 13x13 to 63x63); below 7x7 the strips stay faster: in a launch of one wave,
// the way through shared memory is the longer chain.
//
// Block: 8 warps, 4 across by 2 down: 128 x 32 MT outputs. The tile's rows are (96 + 32 chunks +
// 16) bytes: every chunk a warp reads, and an odd number of 16-byte units, so the 8 rows one
// ldmatrix phase reads fall in 8 different groups of 4 banks. Results go through 768 bytes of
// shared memory a warp so that each lane stores 16 consecutive bytes.
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
#include "kernels/fixed_finish.hpp"

namespace vf::cuda {
namespace {

using imma::Geometry;
using imma::geometry;
using imma::tile_stride;

constexpr int kWarpsX = 4, kWarpsY = 2, kThreads = 32 * kWarpsX * kWarpsY;
constexpr int kOutW = kWarpsX * 32, kOutH = kWarpsY * 16;  // outputs a block
constexpr int kOutStride = 48;                              // bytes a row of a warp's results
constexpr int kMaxWidth = 81;                               // 4 chunks

size_t smem_bytes(int nc, int mt, int kh) {
    return static_cast<size_t>(kOutH * mt + kh - 1) * tile_stride(nc) + kWarpsX * kWarpsY * 16 * kOutStride;
}

// The compiled shapes: NC chunks, bands MLO..MHI (products outside them are skipped), KH kernel
// rows (0: any, a loop at run time), MT 16-row output tiles a warp (each band fragment read
// feeds MT products). A kernel takes the first whose chunks, bands, rows and MT suit it.
struct Shape {
    int nc, m_lo, m_hi, kh, mt;
};
constexpr Shape kShapes[] = {{2, -2, 3, 3, 1}, {2, -2, 3, 5, 1}, {2, -2, 3, 7, 1}, {2, -2, 3, 0, 1},
                             {2, -3, 4, 0, 1}, {3, -3, 8, 0, 1}, {4, -3, 12, 0, 1}, {2, -2, 3, 0, 2},
                             {2, -3, 4, 0, 2}, {3, -3, 8, 0, 2}, {4, -3, 12, 0, 2}};
constexpr int kShapeCount = sizeof kShapes / sizeof kShapes[0];

// Two row tiles a warp where the plane still gives every SM 4 blocks of them, else one: two halve
// the band reads a product, but on smaller planes they leave SMs without blocks.
int row_tiles_for(const PlaneView& dst, int sms) {
    const long long blocks2 = static_cast<long long>((dst.width + kOutW - 1) / kOutW) * ((dst.height + 2 * kOutH - 1) / (2 * kOutH));
    return blocks2 >= 4LL * sms ? 2 : 1;
}

int shape_for(const ConvolveOp& op, int mt) {
    if (op.kw > kMaxWidth) return -1;
    const Geometry g = geometry(op.kw);
    for (int s = 0; s < kShapeCount; ++s) {
        const Shape& sh = kShapes[s];
        if (sh.nc == g.chunks && sh.m_lo <= g.m_lo && sh.m_hi >= g.m_hi && (sh.kh == op.kh || (sh.kh == 0 && sh.mt == mt)))
            return s;
    }
    return -1;
}

// The finish of a whole sum: the integer form where one was found (kind 0: no shift, 1: with a
// funnel shift), else the float finish every backend uses (kind 2; exact because the sums stay
// below 2^24, which imma_eligible checks).
struct Finish {
    int kind;
    int m, shift;
    long long c;
    float rdiv, bias;
};

template <int Kind>
__device__ __forceinline__ int finish_sum(const Finish& f, int s) {
    if constexpr (Kind == 2) {
        const float v = fminf(fmaxf(finish_convolve(static_cast<float>(s), f.rdiv, f.bias), 0.0f), 255.0f);
        return static_cast<int>(v);
    } else {
        const unsigned long long t = static_cast<unsigned long long>(static_cast<long long>(s) * f.m + f.c);
        if (Kind == 0) return static_cast<int>(t >> 32);
        return static_cast<int>(__funnelshift_l(static_cast<uint32_t>(t), static_cast<uint32_t>(t >> 32), f.shift));
    }
}

// Two outputs saturated to 0..255, a in the low byte.
__device__ __forceinline__ uint32_t pack2(int a, int b) {
    uint32_t w;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(w) : "r"(b), "r"(a));
    return w;
}

// Finishes one 16 x 32 tile of a warp's sums and stores it: lane (n, t) holds rows n and n + 8,
// columns 8 ob + 2t and the next; they are packed into the warp's 16 x 48-byte staging area, then
// each lane stores 16 consecutive bytes of one row.
template <int Kind>
__device__ __forceinline__ void finish_store(const int (&acc)[4][4], const Finish& f, uint8_t* staging, const DevPlane& dst,
                                             int x, int y) {
    const int lane = threadIdx.x, n = lane / 4, t = lane % 4;
#pragma unroll
    for (int ob = 0; ob < 4; ++ob) {
        const uint32_t top = pack2(finish_sum<Kind>(f, acc[ob][0]), finish_sum<Kind>(f, acc[ob][1]));
        const uint32_t bottom = pack2(finish_sum<Kind>(f, acc[ob][2]), finish_sum<Kind>(f, acc[ob][3]));
        *reinterpret_cast<uint16_t*>(staging + n * kOutStride + 8 * ob + 2 * t) = static_cast<uint16_t>(top);
        *reinterpret_cast<uint16_t*>(staging + (n + 8) * kOutStride + 8 * ob + 2 * t) = static_cast<uint16_t>(bottom);
    }
    __syncwarp();
    const int r = lane / 2, h = lane % 2;
    const uint4 v = *reinterpret_cast<const uint4*>(staging + r * kOutStride + 16 * h);
    __syncwarp();  // the staging area is free again for the next tile
    const int oy = y + r, ox = x + 16 * h;
    if (oy >= dst.height || ox >= dst.width) return;
    uint8_t* out = dst.data + static_cast<long long>(oy) * dst.pitch + ox;
    if (ox + 16 <= dst.width) {
        *reinterpret_cast<uint4*>(out) = v;
    } else {
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
        for (int p = 0; p < dst.width - ox; ++p) out[p] = static_cast<uint8_t>(w[p / 4] >> (8 * (p % 4)));
    }
}

// The four B fragments of kernel row i and chunk C (blocks whose band holds no tap are skipped).
template <int NC, int MLO, int MHI, int C>
__device__ __forceinline__ void load_bands(uint2 (&b)[4], const uint2* lane_bands, int i) {
#pragma unroll
    for (int ob = 0; ob < 4; ++ob)
        if (4 * C - ob >= MLO && 4 * C - ob <= MHI) b[ob] = __ldg(lane_bands + ((i * NC + C) * 4 + ob) * 32);
}

// One kernel row's products for chunk C: MT row tiles, through the 4 bands b.
template <int NC, int MLO, int MHI, int MT, int C>
__device__ __forceinline__ void chunk_products(int (&acc)[MT][4][4], const uint2 (&b)[4], const uint8_t* a_row, int stride) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        uint32_t a[4];
        ldmatrix_x4(a, a_row + mt * 16 * stride + 32 * C);
#pragma unroll
        for (int ob = 0; ob < 4; ++ob)
            if (4 * C - ob >= MLO && 4 * C - ob <= MHI) imma::mma_u8(acc[mt][ob], a, b[ob]);
    }
}

// The bands of the step after (row i, chunk C) are loaded while this step's products run, so
// their L1 latency does not stall the products.
template <int NC, int MLO, int MHI, int MT, int C>
__device__ __forceinline__ void row_products(int (&acc)[MT][4][4], uint2 (&b)[4], const uint2* lane_bands,
                                             const uint8_t* a_row, int stride, int i, int kh) {
    if constexpr (C < NC) {
        uint2 next[4] = {};
        if constexpr (C + 1 < NC) load_bands<NC, MLO, MHI, C + 1>(next, lane_bands, i);
        else if (i + 1 < kh) load_bands<NC, MLO, MHI, 0>(next, lane_bands, i + 1);
        chunk_products<NC, MLO, MHI, MT, C>(acc, b, a_row, stride);
#pragma unroll
        for (int ob = 0; ob < 4; ++ob) b[ob] = next[ob];
        row_products<NC, MLO, MHI, MT, C + 1>(acc, b, lane_bands, a_row, stride, i, kh);
    }
}

template <int NC, int MLO, int MHI, int KH, int MT>
__global__ void __launch_bounds__(kThreads) imma_kernel(DevPlane src, DevPlane dst, const uint2* __restrict__ bands, int kh_run,
                                                        int pad, Finish finish, int border) {
    constexpr int kStride = tile_stride(NC), kUnroll = KH ? KH : 1;
    const int kh = KH ? KH : kh_run;
    const int lane = threadIdx.x, warp = threadIdx.y, wx = warp % kWarpsX, wy = warp / kWarpsX;
    const uint2* lane_bands = bands + lane;
    // The first step's bands are on their way while the tile is staged.
    uint2 b[4] = {};
    load_bands<NC, MLO, MHI, 0>(b, lane_bands, 0);

    extern __shared__ __align__(16) uint8_t smem[];
    uint8_t* tile = smem;
    const int x0 = blockIdx.x * kOutW, y0 = blockIdx.y * kOutH * MT;
    imma::stage_tile<kThreads, false>(tile, kStride, src, x0 - pad, y0 - kh / 2, kOutH * MT + kh - 1, kStride - 16, border);
    __syncthreads();

    // ldmatrix: lanes 0-7 address rows 0-7 of bytes 0-15, 8-15 rows 8-15, 16-23 rows 0-7 of bytes
    // 16-31, 24-31 rows 8-15: A's four 8 x 16-byte matrices, as m16n8k32 takes them. Warp row wy
    // owns output rows wy * 16 * MT .. + 16 * MT - 1.
    const uint8_t* a_row = tile + (wy * 16 * MT + lane % 8 + 8 * (lane / 8 % 2)) * kStride + wx * 32 + 16 * (lane / 16);
    int acc[MT][4][4] = {};
#pragma unroll kUnroll
    for (int i = 0; i < kh; ++i) row_products<NC, MLO, MHI, MT, 0>(acc, b, lane_bands, a_row + i * kStride, kStride, i, kh);

    uint8_t* staging = smem + (kOutH * MT + kh - 1) * kStride + warp * 16 * kOutStride;
    const int x = x0 + wx * 32, y = y0 + wy * 16 * MT;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        if (finish.kind == 0) finish_store<0>(acc[mt], finish, staging, dst, x, y + 16 * mt);
        else if (finish.kind == 1) finish_store<1>(acc[mt], finish, staging, dst, x, y + 16 * mt);
        else finish_store<2>(acc[mt], finish, staging, dst, x, y + 16 * mt);
    }
}

template <int S>
const void* kernel_of() {
    constexpr Shape sh = kShapes[S];
    return reinterpret_cast<const void*>(imma_kernel<sh.nc, sh.m_lo, sh.m_hi, sh.kh, sh.mt>);
}

const void* kernel_of(int shape) {
    switch (shape) {
    case 0: return kernel_of<0>();
    case 1: return kernel_of<1>();
    case 2: return kernel_of<2>();
    case 3: return kernel_of<3>();
    case 4: return kernel_of<4>();
    case 5: return kernel_of<5>();
    case 6: return kernel_of<6>();
    case 7: return kernel_of<7>();
    case 8: return kernel_of<8>();
    case 9: return kernel_of<9>();
    default: return kernel_of<10>();
    }
}

// The compiled shape, the finish, and the band fragments of every kernel row
// (imma::band_fragment_bytes) in device memory.
struct ImmaState : RowState {
    int shape = 0;
    Finish finish{};
    DeviceBuffer bands;
};

template <int S>
void launch_shape(const ConvolveOp& op, const ImmaState& s, const Launch& l) {
    constexpr Shape sh = kShapes[S];
    auto kernel = imma_kernel<sh.nc, sh.m_lo, sh.m_hi, sh.kh, sh.mt>;
    const dim3 grid((l.dst.width + kOutW - 1) / kOutW, (l.dst.height + kOutH * sh.mt - 1) / (kOutH * sh.mt));
    kernel<<<grid, dim3(32, kWarpsX * kWarpsY), smem_bytes(sh.nc, sh.mt, op.kh), l.stream>>>(
        to_dev(l.src), to_dev(l.dst), reinterpret_cast<const uint2*>(s.bands.data()), op.kh, geometry(op.kw).pad, s.finish,
        border_mode(l.border));
}

// What in the kernel alone keeps it off this path ("" when nothing).
std::string kernel_problem(const ConvolveOp& op, const FixedFinish* byte_finish) {
    if (!op.integer) return "its taps are not whole numbers";
    for (const double t : op.k)
        if (t < -128 || t > 127) return "a tap is outside -128..127 (not a signed byte)";
    if (shape_for(op, 1) < 0 || shape_for(op, 2) < 0) return "no compiled shape for a kernel " + std::to_string(op.kw) + " wide";
    if (!byte_finish && !tensor_taps_problem(op, 255).empty()) return "its finish has no integer form and its sums could reach 2^24";
    return "";
}

// The compiled shape that computes op on these planes, or -1 (why says why).
int eligible_shape(const ConvolveOp& op, const Launch& l, std::string* why) {
    auto no = [&](const std::string& reason) {
        if (why) *why = reason;
        return -1;
    };
    if (!imma::byte_planes(l.src, l.dst)) return no(imma::kNotBytePlanes);
    const std::string problem = kernel_problem(op, l.byte_finish);
    if (!problem.empty()) return no(problem);
    const DeviceLimits d = device_limits();
    if (d.major < 8) return no(imma::kNoIntegerProducts);
    const int shape = shape_for(op, row_tiles_for(l.dst, d.sms));
    const Shape& sh = kShapes[shape];
    if (smem_bytes(sh.nc, sh.mt, op.kh) > static_cast<size_t>(d.optin_smem)) return no("its tile does not fit in shared memory");
    return shape;
}

}  // namespace

bool imma_eligible(const ConvolveOp& op, const Launch& l, std::string* why) { return eligible_shape(op, l, why) >= 0; }

RowStatePtr imma_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx) {
    std::string why;
    const int shape = eligible_shape(op, l, &why);
    if (shape < 0) throw Error(ErrorCategory::Usage, "imma does not take this filter on this plane: " + why);
    auto s = std::make_unique<ImmaState>();
    s->shape = shape;
    s->finish = Finish{2, 0, 0, 0, op.rdiv, op.bias};
    if (const FixedFinish* ff = l.byte_finish) s->finish = Finish{ff->shift ? 1 : 0, ff->m, ff->shift, ff->c, op.rdiv, op.bias};
    ctx.raise_shared_memory(kernel_of(shape));
    s->bands = upload(imma::band_fragment_bytes(op.kw, op.kh, kShapes[shape].nc, [&](int i, int j) {
        return static_cast<int>(op.k[static_cast<size_t>(i) * op.kw + j]);
    }));
    s->device_bytes = static_cast<int64_t>(s->bands.size());
    return s;
}

void conv_imma(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const ImmaState& s = state_as<ImmaState>(state);
    switch (s.shape) {
    case 0: launch_shape<0>(op, s, l); break;
    case 1: launch_shape<1>(op, s, l); break;
    case 2: launch_shape<2>(op, s, l); break;
    case 3: launch_shape<3>(op, s, l); break;
    case 4: launch_shape<4>(op, s, l); break;
    case 5: launch_shape<5>(op, s, l); break;
    case 6: launch_shape<6>(op, s, l); break;
    case 7: launch_shape<7>(op, s, l); break;
    case 8: launch_shape<8>(op, s, l); break;
    case 9: launch_shape<9>(op, s, l); break;
    default: launch_shape<10>(op, s, l); break;
    }
    VF_CUDA_CHECK_LAUNCH("imma_kernel");
}

}  // namespace vf::cuda
