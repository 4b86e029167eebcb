// gradient-strip16: Sobel, Prewitt, Scharr and |Laplacian| on 8-bit planes with 16-byte aligned
// rows where an integer magnitude gives the float one's bytes: 16 outputs a thread (strip16_rows.cuh).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/gradient_taps.cuh"
#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/strip16_rows.cuh"

namespace vf::cuda {

bool gradient_strip16_takes(const GradientOp& op, const Launch& l) {
    const GradTaps g = grad_taps(op);
    return l.src.bytes_per_sample == 1 && l.dst.peak() == 255 && byte_rows_16(l.src) && byte_rows_16(l.dst) &&
           strip16::gradient_integer_ok(strip16_taps(g), g.divisor, g.scale, g.delta);
}

void gradient_strip16(const GradientOp& op, const Launch& l) {
    strip16::launch_gradient(l.src, l.dst, strip16_taps(grad_taps(op)), border_mode(l.border), l.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (gradient)");
}

void gradient_strip16_batch(const GradientOp& op, const BatchLaunch& b) {
    strip16::launch_gradient_batch(b.src, b.dst, b.count, strip16_taps(grad_taps(op)), border_mode(b.border), b.stream);
    VF_CUDA_CHECK_LAUNCH("strip16_batch_kernel (gradient)");
}

}  // namespace vf::cuda
