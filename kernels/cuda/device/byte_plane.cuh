// Helpers for the variants that move 8-bit planes 16 bytes at a time (strip16_rows.cuh,
// imma.cu, separable_imma.cu, box_sums.cuh): which planes allow it, and packing four
// saturated outputs into a word.
#pragma once

#include <cstdint>

#include "common/plane.hpp"

namespace vf::cuda {

// 8-bit planar with 16-byte aligned rows: every frame vfilter allocates, and NVDEC's luma.
inline bool byte_rows_16(const PlaneView& v) {
    return v.step == 1 && v.bytes_per_sample == 1 && v.pitch % 16 == 0 && reinterpret_cast<uintptr_t>(v.data) % 16 == 0;
}

// Four outputs, saturated to 0..255, packed into a word (output 0 in the low byte).
__device__ __forceinline__ uint32_t pack4_saturated(int a, int b, int c, int d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 720
    uint32_t hi, w;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(hi) : "r"(d), "r"(c));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(w) : "r"(b), "r"(a), "r"(hi));
    return w;
#else
    auto sat = [](int v) { return static_cast<uint32_t>(min(max(v, 0), 255)); };
    return sat(a) | sat(b) << 8 | sat(c) << 16 | sat(d) << 24;
#endif
}

}  // namespace vf::cuda
