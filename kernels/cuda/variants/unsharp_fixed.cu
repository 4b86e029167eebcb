// unsharp-fixed: FFmpeg 5.1's unsharp in its own fixed point (OpKind::UnsharpFixed), plainly: one
// thread an output, the binomial window summed through the border rule in 32 bits (wrapping as
// FFmpeg's uint32_t sums do), rounded, and finished as FFmpeg finishes (kernels/ffmpeg_arith.hpp).
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/variants.hpp"
#include "kernels/ffmpeg_arith.hpp"

namespace vf::cuda {
namespace {

template <typename T>
__device__ __forceinline__ int read_at(const DevPlane& p, int x, int y) {
    const T* row = reinterpret_cast<const T*>(p.data + y * p.pitch);
    return row[x * p.step] >> p.shift;
}

template <typename T>
__global__ void unsharp_fixed_kernel(DevPlane src, DevPlane dst, UnsharpFixedOp op, int mode, int bytes_per_sample) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    uint32_t sum = 0;
    for (int j = 0; j <= 2 * op.steps_y; ++j) {
        const int sy = border_index_dev(y + j - op.steps_y, src.height, mode);
        if (sy < 0) continue;
        const uint32_t ty = ffmpeg_binomial_tap(op.steps_y, j);
        for (int i = 0; i <= 2 * op.steps_x; ++i) {
            const int sx = border_index_dev(x + i - op.steps_x, src.width, mode);
            if (sx >= 0) sum += ty * ffmpeg_binomial_tap(op.steps_x, i) * static_cast<uint32_t>(read_at<T>(src, sx, sy));
        }
    }
    const int32_t blur = ffmpeg_unsharp_blur(sum, 2 * (op.steps_x + op.steps_y));
    const int out = ffmpeg_unsharp_finish(read_at<T>(src, x, y), blur, op.amount, bytes_per_sample);
    T* row = reinterpret_cast<T*>(dst.data + y * dst.pitch);
    row[x * dst.step] = static_cast<T>(out << dst.shift);
}

}  // namespace

void unsharp_fixed(const UnsharpFixedOp& op, const Launch& l) {
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    const int mode = border_mode(l.border);
    if (l.src.bytes_per_sample == 1)
        unsharp_fixed_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op, mode, 1);
    else
        unsharp_fixed_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), op, mode, 2);
    VF_CUDA_CHECK_LAUNCH("unsharp_fixed_kernel");
}

}  // namespace vf::cuda
