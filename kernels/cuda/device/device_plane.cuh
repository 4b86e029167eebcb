// Device-side access to a channel (PlaneView whose data is device memory): 8- or 16-bit
// samples, a sample step (2 for nv12/p010 chroma) and a shift (6 for p010).
#pragma once

#include <cstdint>

#include "kernels/border.hpp"
#include "common/plane.hpp"

namespace vf::cuda {

struct DevPlane {
    uint8_t* data;
    long long pitch;
    int width, height, step, shift, peak;
};

inline DevPlane to_dev(const PlaneView& v) {
    return {v.data, static_cast<long long>(v.pitch), v.width, v.height, v.step, v.shift, v.peak()};
}

// Up to kMaxBatch planes of one size for one batched launch: block z takes pair z. Passed as a
// __grid_constant__ kernel parameter (1.3 KB), so no upload precedes the launch.
constexpr int kMaxBatch = 16;
struct DevPlaneBatch {
    DevPlane src[kMaxBatch], dst[kMaxBatch];
};

inline DevPlaneBatch to_dev_batch(const PlaneView* src, const PlaneView* dst, int count) {
    DevPlaneBatch b{};
    for (int i = 0; i < count && i < kMaxBatch; ++i) b.src[i] = to_dev(src[i]), b.dst[i] = to_dev(dst[i]);
    return b;
}

template <typename T>
__device__ __forceinline__ float load_sample(const DevPlane& p, int x, int y) {
    const T* row = reinterpret_cast<const T*>(p.data + y * p.pitch);
    return static_cast<float>(row[x * p.step] >> p.shift);
}

// Rounds as every backend does: clamp to [0, peak] then truncate (FFmpeg's (int) cast); NaN -> 0.
template <typename T>
__device__ __forceinline__ void store_sample(const DevPlane& p, int x, int y, float v) {
    float c = v > 0.0f ? v : 0.0f;
    c = fminf(c, static_cast<float>(p.peak));
    T* row = reinterpret_cast<T*>(p.data + y * p.pitch);
    row[x * p.step] = static_cast<T>(static_cast<int>(c) << p.shift);
}

// The border rule as the kernels take it: 0 mirror, 1 replicate, 2 zero, 3 reflect (FFmpeg's
// boxblur's edge: only its row, box-passes, is given it), 4 mirror-repeat (FFmpeg's 3x3 edge).
inline int border_mode(Border b) {
    switch (b) {
    case Border::Mirror: return 0;
    case Border::Replicate: return 1;
    case Border::Zero: return 2;
    case Border::Reflect: return 3;
    case Border::MirrorRepeat: return 4;
    }
    return 0;
}

// Same as vf::border_index (kernels/border.hpp); kept in step by the GPU tests.
// mode: 0 mirror, 1 replicate, 2 zero, 3 reflect, 4 mirror-repeat.
__device__ __forceinline__ int border_index_dev(int i, int n, int mode) {
    if (i >= 0 && i < n) return i;
    if (mode == 2) return -1;
    if (mode == 1) return i < 0 ? 0 : n - 1;
    if (mode == 4) {
        int m = i < 0 ? -i : i;
        if (m >= n) m = 2 * n - 1 - m;
        return m < 0 ? 0 : (m >= n ? n - 1 : m);
    }
    if (mode == 3) {
        int m = i % (2 * n);
        if (m < 0) m += 2 * n;
        return m < n ? m : 2 * n - 1 - m;
    }
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    int m = i % period;
    if (m < 0) m += period;
    return m < n ? m : period - m;
}

template <typename T>
__device__ __forceinline__ float load_bordered(const DevPlane& p, int x, int y, int mode) {
    const int sx = border_index_dev(x, p.width, mode);
    const int sy = border_index_dev(y, p.height, mode);
    if (sx < 0 || sy < 0) return 0.0f;
    return load_sample<T>(p, sx, sy);
}

// (float)sum * rdiv + bias + 0.5, each step rounded separately as on the CPU (no FMA contraction).
__device__ __forceinline__ float finish_convolve(float sum, float rdiv, float bias) {
    return __fadd_rn(__fadd_rn(__fmul_rn(sum, rdiv), bias), 0.5f);
}

}  // namespace vf::cuda
