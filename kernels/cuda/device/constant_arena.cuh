// The constant-memory arena of the direct kernels that read taps from constant memory
// (`constant`, `tile`): each kernel's taps are uploaded once, padded with zero rows to a multiple
// of kChunk, and keep their offset for the life of the process. The arena is private to each
// translation unit that includes this header (constant memory belongs to its module).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/op_cache.hpp"

namespace vf::cuda {
namespace {

constexpr int kChunk = 8;            // kernel rows per register-blocked step
constexpr int kArenaFloats = 16000;  // of the 64 KB constant bank

__constant__ float c_taps[kArenaFloats];

// The offset of the kernel's taps in the arena; -1 when they did not fit.
int arena_offset(const ConvolveOp& op) {
    static OpCache<int> cache;
    static std::map<int, int> used_on;  // per device; guarded by the cache's lock, held while make() runs
    return cache.get(op, 0, [&] {
        int device = 0;
        cudaGetDevice(&device);
        int& used = used_on[device];
        const int khp = (op.kh + kChunk - 1) / kChunk * kChunk;
        std::vector<float> taps(static_cast<size_t>(khp) * op.kw, 0.0f);
        for (int j = 0; j < op.kh; ++j)
            for (int i = 0; i < op.kw; ++i) taps[j * op.kw + i] = static_cast<float>(op.k[j * op.kw + i]);
        if (used + static_cast<int>(taps.size()) > kArenaFloats) return std::make_unique<int>(-1);
        copy_to_symbol_now(c_taps, taps.data(), taps.size() * sizeof(float), used * sizeof(float));
        auto off = std::make_unique<int>(used);
        used += static_cast<int>(taps.size());
        return off;
    });
}

}  // namespace
}  // namespace vf::cuda
