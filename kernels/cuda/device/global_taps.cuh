// Device copies of a kernel's taps in global memory, uploaded once per kernel.
#pragma once

#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/op_cache.hpp"

namespace vf::cuda {
namespace {

// Device copies of a kernel's taps: float for the naive kernel (and kernels too big for the
// arena), double for non-integer kernels on the exact path. Kept for the life of the process.
template <typename V>
const V* global_taps(const ConvolveOp& op) {
    static OpCache<DeviceBuffer> cache;
    const DeviceBuffer& b = cache.get(op, 0, [&] {
        return upload(std::vector<V>(op.k.begin(), op.k.end()));
    });
    return reinterpret_cast<const V*>(b.data());
}

}  // namespace
}  // namespace vf::cuda
