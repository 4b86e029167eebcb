// copy: a channel copied between layouts (planar, interleaved, shifted); the driver's 2D copy
// where both have the same planar layout.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void copy_kernel(DevPlane src, DevPlane dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < dst.width && y < dst.height) store_sample<T>(dst, x, y, load_sample<T>(src, x, y));
}

template <typename T>
__global__ void copy_batch_kernel(const __grid_constant__ DevPlaneBatch planes) {
    const DevPlane& src = planes.src[blockIdx.z];
    const DevPlane& dst = planes.dst[blockIdx.z];
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < dst.width && y < dst.height) store_sample<T>(dst, x, y, load_sample<T>(src, x, y));
}

}  // namespace

void copy_plane(const Launch& l) {
    if (l.src.step == 1 && l.dst.step == 1 && l.src.shift == 0 && l.dst.shift == 0 &&
        l.src.bytes_per_sample == l.dst.bytes_per_sample) {
        // Same planar layout: the driver's own 2D copy, faster than a sample per thread. (Shifted
        // samples take the kernel: it clears p010's unused low bits, as the CPU path does.)
        VF_CUDA_CHECK(cudaMemcpy2DAsync(l.dst.data, l.dst.pitch, l.src.data, l.src.pitch,
                                        static_cast<size_t>(l.src.width) * l.src.bytes_per_sample, l.src.height,
                                        cudaMemcpyDeviceToDevice, l.stream));
        return;
    }
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    if (l.src.bytes_per_sample == 1) copy_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst));
    else copy_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst));
    VF_CUDA_CHECK_LAUNCH("copy_kernel");
}

// One kernel for the whole batch, whatever the layouts (the driver's 2D copy takes one plane a call).
void copy_plane_batch(const BatchLaunch& b) {
    const PlaneView& d = b.dst[0];
    for (int first = 0; first < b.count; first += kMaxBatch) {
        const int n = b.count - first < kMaxBatch ? b.count - first : kMaxBatch;
        const dim3 block(32, 8), grid((d.width + 31) / 32, (d.height + 7) / 8, n);
        const DevPlaneBatch planes = to_dev_batch(b.src + first, b.dst + first, n);
        if (b.src[0].bytes_per_sample == 1) copy_batch_kernel<uint8_t><<<grid, block, 0, b.stream>>>(planes);
        else copy_batch_kernel<uint16_t><<<grid, block, 0, b.stream>>>(planes);
        VF_CUDA_CHECK_LAUNCH("copy_batch_kernel");
    }
}

}  // namespace vf::cuda
