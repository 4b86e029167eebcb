// gradient-strip: both 3x3 sums in FP32 on planar planes with 4-byte aligned rows, 8 outputs per
// thread without shared memory (strip_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/gradient_taps.cuh"
#include "kernels/cuda/device/strip_rows.cuh"

namespace vf::cuda {

bool gradient_strip_takes(const GradientOp&, const Launch& l) { return strip::usable(l.src) && strip::usable(l.dst); }

void gradient_strip(const GradientOp& op, const Launch& l) {
    strip::launch<1>(l.src, l.dst, StripGradient{grad_taps(op)}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip_kernel (gradient)");
}

}  // namespace vf::cuda
