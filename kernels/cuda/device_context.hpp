// One GPU's share of vfilter's GPU state, owned by the objects that use that GPU:
//   - the constant-memory arenas of the variants that read taps from constant memory (a range of
//     an arena per prepared operation, given back when the operation goes);
//   - the kernels whose dynamic shared-memory limit has been raised on this device
//     (cudaFuncSetAttribute applies to the device current when it is called, so each GPU needs
//     its own call);
//   - the store of prepared chains (prepared_chain.hpp): streams filtering the same chain on frames
//     of the same geometry share one, and with it their batched launches;
//   - what the prepared operations alive on it hold, for /metrics.
// A context is made by its device's owner, the GPU runtime (pipeline/gpu_runtime.hpp), and freed
// with its last user. Constant memory belongs to the module on each device, not to a context: two
// contexts of one device (two runtimes in one process) take their ranges from one record of the
// process's per device and array, so they never hand out the same bytes.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "kernels/cuda/device_limits.hpp"

namespace vf::cuda {

class PreparedChain;

// A range of one variant's constant-memory arena holding one operation's taps, in floats; given
// back when destroyed. Empty (offset -1) when the arena had no room: the variant then reads its
// taps from global memory.
class ConstantSlot {
public:
    ConstantSlot() = default;
    ~ConstantSlot();
    ConstantSlot(ConstantSlot&& o) noexcept;
    ConstantSlot& operator=(ConstantSlot&& o) noexcept;
    ConstantSlot(const ConstantSlot&) = delete;
    ConstantSlot& operator=(const ConstantSlot&) = delete;
    int offset() const { return offset_; }
    int floats() const { return floats_; }
    explicit operator bool() const { return offset_ >= 0; }

private:
    friend class DeviceContext;
    struct Arena* arena_ = nullptr;
    int offset_ = -1, floats_ = 0;
};

// What the prepared operations and chains alive on a device hold.
struct PreparedTotals {
    int64_t chains = 0;        // prepared chains alive
    int64_t operations = 0;    // prepared operations alive (a chain has one per filter and channel)
    int64_t device_bytes = 0;  // GPU memory they hold (taps, tables, spectra), constant memory included
};

class DeviceContext {
public:
    // A new context of `device` (made current while it is made).
    static std::shared_ptr<DeviceContext> create(int device);

    ~DeviceContext();
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

    int device() const { return device_; }
    const DeviceLimits& limits() const { return limits_; }

    // Lets `kernel` take `bytes` of dynamic shared memory a block on this device (-1: as much as a
    // block may opt in to). Once per kernel; call with this device current.
    void raise_shared_memory(const void* kernel, int bytes = -1);
    // Copies `taps` into a free range of the arena `symbol` (a __constant__ array of `capacity`
    // floats) and returns the range; empty when no range is free. Call with this device current.
    ConstantSlot constant_slot(const void* symbol, int capacity, const std::vector<float>& taps);

    PreparedTotals totals() const;

private:
    friend class PreparedChain;
    friend class PreparedOp;
    explicit DeviceContext(int device);

    const int device_;
    DeviceLimits limits_;
    std::mutex mutex_;  // the attributes
    std::set<const void*> raised_;
    std::atomic<int64_t> chains_{0}, operations_{0}, device_bytes_{0};

    // The store of prepared chains (prepared_chain.cpp): each alive one by its key's hash; weak,
    // so a chain lives exactly as long as a stream or a frame in flight holds it.
    struct StoredChain {
        uint64_t hash;
        std::weak_ptr<const PreparedChain> chain;
    };
    std::mutex store_mutex_;
    std::vector<StoredChain> store_;
};

// Makes a device current for the calling thread while it lives, then puts the previous one back.
// Never throws (it runs in destructors); a device it could not make current shows in the next call.
class DeviceGuard {
public:
    explicit DeviceGuard(int device);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;
};

}  // namespace vf::cuda
