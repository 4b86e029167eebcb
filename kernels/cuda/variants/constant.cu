// constant: the naive loop with the taps in constant memory (a warp reads the same tap at once:
// one broadcast).
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/constant_arena.cuh"

namespace vf::cuda {
namespace {

template <typename T>
__global__ void constant_kernel(DevPlane src, DevPlane dst, int off, int kw, int kh, float rdiv, float bias, int border) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    float acc = 0.0f;
    for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i)
            acc = fmaf(c_taps[off + j * kw + i], load_bordered<T>(src, x + i - kw / 2, y + j - kh / 2, border), acc);
    store_sample<T>(dst, x, y, finish_convolve(acc, rdiv, bias));
}

}  // namespace

// The taps' range of the arena, or naive's taps in global memory where the arena is full (the
// same answer).
struct ConstantState : RowState {
    ConstantSlot slot;
    RowStatePtr fallback;
};

RowStatePtr constant_prepare(const ConvolveOp& op, DeviceContext& ctx) {
    auto s = std::make_unique<ConstantState>();
    s->slot = arena_slot(op, ctx);
    if (!s->slot) s->fallback = naive_prepare(op, ctx);
    s->device_bytes = s->slot ? s->slot.floats() * 4 : s->fallback->device_bytes;
    return s;
}

void conv_constant(const ConvolveOp& op, const RowState* state, const Launch& l) {
    const ConstantState& s = state_as<ConstantState>(state);
    if (!s.slot) return conv_naive(op, s.fallback.get(), l);
    const int off = s.slot.offset();
    const dim3 block(32, 8), grid((l.dst.width + 31) / 32, (l.dst.height + 7) / 8);
    if (l.src.bytes_per_sample == 1)
        constant_kernel<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh, op.rdiv,
                                                               op.bias, border_mode(l.border));
    else
        constant_kernel<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), to_dev(l.dst), off, op.kw, op.kh,
                                                                op.rdiv, op.bias, border_mode(l.border));
    VF_CUDA_CHECK_LAUNCH("constant_kernel");
}

}  // namespace vf::cuda
