#include "kernels/cuda/device_context.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace vf::cuda {

// One variant's __constant__ array: which ranges are taken (offset -> floats).
struct Arena {
    const void* symbol = nullptr;
    int capacity = 0;
    std::mutex* mutex = nullptr;  // the context's
    std::map<int, int> used;
};

ConstantSlot::~ConstantSlot() {
    if (!arena_ || offset_ < 0) return;
    std::lock_guard<std::mutex> lock(*arena_->mutex);
    arena_->used.erase(offset_);
}

ConstantSlot::ConstantSlot(ConstantSlot&& o) noexcept
    : arena_(std::exchange(o.arena_, nullptr)), offset_(std::exchange(o.offset_, -1)), floats_(o.floats_) {}

ConstantSlot& ConstantSlot::operator=(ConstantSlot&& o) noexcept {
    std::swap(arena_, o.arena_);
    std::swap(offset_, o.offset_);
    std::swap(floats_, o.floats_);
    return *this;
}

namespace {

// Contexts by device. Weak: the registry owns nothing; the users of a context own it.
struct Registry {
    std::mutex mutex;
    std::map<int, std::weak_ptr<DeviceContext>> contexts;
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: contexts may outlive static destruction
    return *r;
}

}  // namespace

std::shared_ptr<DeviceContext> DeviceContext::acquire(int device) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (auto live = r.contexts[device].lock()) return live;
    auto made = std::shared_ptr<DeviceContext>(new DeviceContext(device));
    r.contexts[device] = made;
    return made;
}

std::vector<std::shared_ptr<DeviceContext>> DeviceContext::live() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<std::shared_ptr<DeviceContext>> out;
    for (auto& [device, weak] : r.contexts)
        if (auto c = weak.lock()) out.push_back(std::move(c));
    return out;
}

DeviceContext::DeviceContext(int device) : device_(device) {
    DeviceGuard guard(device);
    limits_ = device_limits();
}

DeviceContext::~DeviceContext() = default;

void DeviceContext::raise_shared_memory(const void* kernel, int bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!raised_.insert(kernel).second) return;
    const int value = bytes < 0 ? limits_.optin_smem : std::min(bytes, limits_.optin_smem);
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, value);
    if (err != cudaSuccess) {
        raised_.erase(kernel);
        VF_CUDA_CHECK(err);
    }
}

ConstantSlot DeviceContext::constant_slot(const void* symbol, int capacity, const std::vector<float>& taps) {
    const int n = static_cast<int>(taps.size());
    ConstantSlot slot;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::unique_ptr<Arena>& a = arenas_[symbol];
        if (!a) {
            a = std::make_unique<Arena>();
            a->symbol = symbol;
            a->capacity = capacity;
            a->mutex = &mutex_;
        }
        // First fit between the ranges taken (they are few: one per live operation of the variant).
        int at = 0;
        for (const auto& [offset, floats] : a->used) {
            if (offset - at >= n) break;
            at = offset + floats;
        }
        if (at + n > capacity) return slot;
        a->used[at] = n;
        slot.arena_ = a.get();
        slot.offset_ = at;
        slot.floats_ = n;
    }
    // The range is ours now: the copy runs outside the lock. A failed copy gives the range back.
    copy_to_symbol_now(symbol, taps.data(), taps.size() * sizeof(float), static_cast<size_t>(slot.offset_) * sizeof(float));
    return slot;
}

PreparedTotals DeviceContext::totals() const {
    PreparedTotals t;
    t.chains = chains_.load();
    t.operations = operations_.load();
    t.device_bytes = device_bytes_.load();
    return t;
}

DeviceGuard::DeviceGuard(int device) {
    // Never throws: guards run in destructors too, where a broken context (a lost GPU) must not end
    // the process; the next CUDA call that needs the device reports the error.
    int now = -1;
    if (cudaGetDevice(&now) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (now == device) return;
    if (cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    previous_ = now;
}

DeviceGuard::~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace vf::cuda
