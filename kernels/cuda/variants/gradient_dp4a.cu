// gradient-dp4a: both 3x3 sums by DP4A on 8-bit planar planes with 4-byte aligned rows and byte
// taps, 8 outputs per thread without shared memory (strip_dp4a_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/gradient_taps.cuh"
#include "kernels/cuda/device/strip_dp4a_rows.cuh"

namespace vf::cuda {

bool gradient_dp4a_takes(const GradientOp& op, const Launch& l) {
    return strip::usable(l.src) && strip::usable(l.dst) && l.src.bytes_per_sample == 1 && strip::byte_taps<3>(StripGradient{grad_taps(op)});
}

// 1 row per thread: 2 rows gain nothing at 4K and lose at 1080p (fewer threads to fill the GPU).
void gradient_dp4a(const GradientOp& op, const Launch& l) {
    strip::launch_dp4a<3, 1>(l.src, l.dst, StripGradient{grad_taps(op)}, border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("dp4a_kernel (gradient)");
}

}  // namespace vf::cuda
