// strip-dp4a: 3x3 and 5x5 kernels with byte taps on 8-bit planar planes: strip-f32's shape with
// DP4A sums (strip_dp4a_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/strip_dp4a_rows.cuh"

namespace vf::cuda {
namespace {

template <int K>
void launch_strip_dp4a(const ConvolveOp& op, const Launch& l) {
    strip::launch_dp4a<K, 2>(l.src, l.dst, StripConvolve<K>{float_taps<K>(op), op.rdiv, op.bias}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("dp4a_kernel (convolution)");
}

}  // namespace

bool strip_dp4a_takes(const ConvolveOp& op, const Launch& l) {
    if (op.kw != op.kh || !op.integer || !strip::usable(l.src) || !strip::usable(l.dst) || l.src.bytes_per_sample != 1) return false;
    if (op.kw == 3) return strip::byte_taps<3>(StripConvolve<3>{float_taps<3>(op), op.rdiv, op.bias});
    return op.kw == 5 && strip::byte_taps<5>(StripConvolve<5>{float_taps<5>(op), op.rdiv, op.bias});
}

void strip_dp4a(const ConvolveOp& op, const Launch& l) {
    if (op.kw == 3) launch_strip_dp4a<3>(op, l);
    else launch_strip_dp4a<5>(op, l);
}

}  // namespace vf::cuda
