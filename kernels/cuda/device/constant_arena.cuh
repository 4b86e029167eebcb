// The constant-memory arena of the direct kernels that read taps from constant memory
// (`constant`, `tile`): each prepared operation's taps, padded with zero rows to a multiple of
// kChunk, take a range of it (DeviceContext::constant_slot) and give it back when the operation
// goes. The arena is private to each translation unit that includes this header (constant memory
// belongs to its module); the device context keeps one allocator per arena and device.
#pragma once

#include <vector>

#include "kernels/cuda/device_context.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {
namespace {

constexpr int kChunk = 8;            // kernel rows per register-blocked step
constexpr int kArenaFloats = 16000;  // of the 64 KB constant bank

__constant__ float c_taps[kArenaFloats];

// The operation's taps in this translation unit's arena; an empty slot when they do not fit.
ConstantSlot arena_slot(const ConvolveOp& op, DeviceContext& ctx) {
    const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
    std::vector<float> taps(static_cast<size_t>(khp) * op.kw, 0.0f);
    for (int j = 0; j < op.kh; ++j)
        for (int i = 0; i < op.kw; ++i) taps[j * op.kw + i] = static_cast<float>(op.k[j * op.kw + i]);
    return ctx.constant_slot(reinterpret_cast<const void*>(&c_taps), kArenaFloats, taps);
}

}  // namespace
}  // namespace vf::cuda
