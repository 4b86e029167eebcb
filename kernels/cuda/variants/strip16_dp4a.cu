// strip16-dp4a: whole-number kernels from 3x3 to 15x15 with byte taps on 8-bit planes with 16-byte
// aligned rows: 16 outputs a thread, DP4A sums and the integer finish (strip16_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/strip16_rows.cuh"

namespace vf::cuda {
namespace {

template <int K>
void launch_strip16(const ConvolveOp& op, const Launch& l) {
    strip16::launch<K>(l.src, l.dst, [&](int j, int i) { return static_cast<int>(op.k[static_cast<size_t>(j) * K + i]); },
                       *fixed_finish_for(op), border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (convolution)");
}

template <int K>
void launch_strip16_batch(const ConvolveOp& op, const BatchLaunch& b) {
    strip16::launch_batch<K>(b.src, b.dst, b.count,
                             [&](int j, int i) { return static_cast<int>(op.k[static_cast<size_t>(j) * K + i]); },
                             *fixed_finish_for(op), border_mode(b.border), b.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_batch_kernel (convolution)");
}

}  // namespace

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

void strip16_dp4a_batch(const ConvolveOp& op, const BatchLaunch& b) {
    switch (op.kw) {
    case 3: return launch_strip16_batch<3>(op, b);
    case 5: return launch_strip16_batch<5>(op, b);
    case 7: return launch_strip16_batch<7>(op, b);
    case 9: return launch_strip16_batch<9>(op, b);
    case 11: return launch_strip16_batch<11>(op, b);
    case 13: return launch_strip16_batch<13>(op, b);
    default: return launch_strip16_batch<15>(op, b);
    }
}

}  // namespace vf::cuda
