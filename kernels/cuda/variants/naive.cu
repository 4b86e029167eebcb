// naive: one thread per output, every tap a load from global memory. The plain first step of the
// direct family: any size, any taps; `constant` and `tile` fall back to it when their constant
// memory arena is full.
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void naive_kernel(DevPlane src, DevPlane dst, const float* __restrict__ taps, int kw, int kh, float rdiv,
                             float bias, int border) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    float acc = 0.0f;
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i)
            acc = fmaf(taps[j * kw + i], load_bordered<T>(src, x + i - kw / 2, y + j - kh / 2, border), acc);
    store_sample<T>(dst, x, y, finish_convolve(acc, rdiv, bias));
}

}  // namespace

RowStatePtr naive_prepare(const ConvolveOp& op, DeviceContext&) {
    return std::make_unique<BufferState>(upload(std::vector<float>(op.k.begin(), op.k.end())));
}

void conv_naive(const ConvolveOp& op, const RowState* s, const Launch& l) {
    const float* taps = reinterpret_cast<const float*>(state_as<BufferState>(s).buffer.data());
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    if (l.src.bytes_per_sample == 1)
        naive_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv,
                                                            op.bias, border_mode(l.border));
    else
        naive_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), taps, op.kw, op.kh, op.rdiv,
                                                             op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("naive_kernel");
}

}  // namespace vf::cuda
