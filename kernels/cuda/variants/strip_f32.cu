// strip-f32: whole-number 3x3 kernels on planar planes with 4-byte aligned rows, without shared
// memory: 2 x 8 outputs per thread, FP32 sums (strip_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/direct_tile.cuh"
#include "kernels/cuda/device/strip_rows.cuh"

namespace vf::cuda {

bool strip_f32_takes(const ConvolveOp& op, const Launch& l) {
    return op.kw == 3 && op.kh == 3 && op.integer && strip::usable(l.src) && strip::usable(l.dst);
}

void strip_f32(const ConvolveOp& op, const Launch& l) {
    strip::launch<2>(l.src, l.dst, StripConvolve<3>{float_taps<3>(op), op.rdiv, op.bias}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip_kernel (convolution)");
}

}  // namespace vf::cuda
