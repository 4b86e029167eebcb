// fill: a channel set to neutral grey (the chroma of a filter that drops colour).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void fill_kernel(DevPlane dst, float value) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < dst.width && y < dst.height) store_sample<T>(dst, x, y, value);
}

template <typename T>
__global__ void fill_batch_kernel(const __grid_constant__ DevPlaneBatch planes, float value) {
    const DevPlane& dst = planes.dst[blockIdx.z];
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < dst.width && y < dst.height) store_sample<T>(dst, x, y, value);
}

}  // namespace

void fill_neutral(const Launch& l) {
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    const float v = static_cast<float>(1 << (l.dst.depth - 1));
    if (l.dst.bytes_per_sample == 1) fill_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.dst), v);
    else fill_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.dst), v);
    VF_CUDA_CHECK_LAUNCH("fill_kernel");
}

void fill_neutral_batch(const BatchLaunch& b) {
    const PlaneView& d = b.dst[0];
    const float v = static_cast<float>(1 << (d.depth - 1));
    for (int first = 0; first < b.count; first += kMaxBatch) {
        const int n = b.count - first < kMaxBatch ? b.count - first : kMaxBatch;
        const dim3 block(32, 8), grid((d.width + 31) / 32, (d.height + 7) / 8, n);
        const DevPlaneBatch planes = to_dev_batch(b.src + first, b.dst + first, n);
        if (d.bytes_per_sample == 1) fill_batch_kernel<uint8_t><<<grid, block, 0, b.stream>>>(planes, v);
        else fill_batch_kernel<uint16_t><<<grid, block, 0, b.stream>>>(planes, v);
        VF_CUDA_CHECK_LAUNCH("fill_batch_kernel");
    }
}

}  // namespace vf::cuda
