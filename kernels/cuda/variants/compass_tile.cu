// compass-tile: Kirsch's compass gradient through a shared-memory tile, 4 x 2 outputs per thread
// (wide_tile.cuh): the 8 neighbours of each output, the sum of the kernel turned to each of its 8
// directions, the largest kept. Takes every plane: interleaved chroma, 16-bit samples, odd pitches.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/wide_tile.cuh"

namespace vf::cuda {
namespace {

// The outer taps (kCompassOrder) and the finish. Turning the kernel t steps pairs outer tap i
// with neighbour i + t, so each direction's sum is the same taps against the neighbours read
// from a different start.
struct CompassTaps {
    float ring[8];  // gx's outer taps in kCompassOrder
    float centre;
    float scale, delta;
};

__device__ __forceinline__ float compass_value(const CompassTaps& c, const float (&n)[8], float mid) {
    float best = 0.0f;
#pragma unroll
    for (int t = 0; t < 8; ++t) {
        float sum = c.centre * mid;  // whole numbers far below 2^24: every order of sums is exact
#pragma unroll
        for (int i = 0; i < 8; ++i) sum += c.ring[i] * n[(i + t) & 7];
        best = t == 0 ? sum : fmaxf(best, sum);
    }
    return __fadd_rn(__fmul_rn(fabsf(best), c.scale), c.delta);
}

template <typename T, bool kVec>
__global__ void __launch_bounds__(wide::kTX* wide::kTY) compass_wide_kernel(DevPlane src, DevPlane dst, CompassTaps c, int border) {
    constexpr int rows = wide::kTileH + 2;
    __shared__ __align__(16) float tile[rows * wide::kCols];
    const int x0 = blockIdx.x * wide::kTileW, y0 = blockIdx.y * wide::kTileH;
    wide::load<T, kVec>(tile, src, x0, y0 - 1, rows, border);
    __syncthreads();
    const int ty0 = threadIdx.y * wide::kPY;
    float out[wide::kPY][4];
#pragma unroll
    for (int q = 0; q < wide::kPY; ++q) {
        float above[12], here[12], below[12];
        wide::segment(tile, ty0 + q, above);
        wide::segment(tile, ty0 + q + 1, here);
        wide::segment(tile, ty0 + q + 2, below);
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            // Neighbours in kCompassOrder: reading order, the centre left out.
            const float n[8] = {above[p + 3], above[p + 4], above[p + 5], here[p + 3],
                                here[p + 5],  below[p + 3], below[p + 4], below[p + 5]};
            out[q][p] = compass_value(c, n, here[p + 4]);
        }
    }
    wide::store_block<T, kVec>(dst, x0, y0, [&](int q, int p) { return out[q][p]; });
}

template <typename T, bool kVec>
void launch_compass(const CompassTaps& c, const Launch& l, int border) {
    compass_wide_kernel<T, kVec><<<wide::grid(l.dst), wide::block(), 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), c, border);
    VF_CUDA_CHECK_LAUNCH("compass_wide_kernel");
}

}  // namespace

void compass_tile(const GradientOp& op, const Launch& l) {
    CompassTaps c;
    for (int i = 0; i < 8; ++i) c.ring[i] = static_cast<float>(op.gx[kCompassOrder[i]]);
    c.centre = static_cast<float>(op.gx[4]);
    c.scale = op.scale;
    c.delta = op.delta;
    const int border = border_mode(l.border);
    const bool vec = wide::vector_ok(l.src) && wide::vector_ok(l.dst);
    if (l.src.bytes_per_sample == 1) {
        if (vec) launch_compass<uint8_t, true>(c, l, border);
        else launch_compass<uint8_t, false>(c, l, border);
    } else {
        if (vec) launch_compass<uint16_t, true>(c, l, border);
        else launch_compass<uint16_t, false>(c, l, border);
    }
}

}  // namespace vf::cuda
