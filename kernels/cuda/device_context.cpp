#include "kernels/cuda/device_context.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace vf::cuda {

// One variant's __constant__ array: which ranges are taken (offset -> floats).
struct Arena {
    const void* symbol = nullptr;
    int capacity = 0;
    std::mutex* mutex = nullptr;  // the arenas' (constant_arenas below)
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

// The __constant__ arrays are the CUDA module's: one copy per device for the whole process, used
// by every runtime's contexts of that device. So the record of which ranges are taken is the
// process's too, one arena per device and array; it holds no memory of its own.
struct ConstantArenas {
    std::mutex mutex;
    std::map<std::pair<int, const void*>, std::unique_ptr<Arena>> arenas;
};

ConstantArenas& constant_arenas() {
    // Never destroyed: a slot may be given back while the process exits.
    static ConstantArenas* arenas = new ConstantArenas;  // process-wide: the module's arrays are the process's
    return *arenas;
}

}  // namespace

std::shared_ptr<DeviceContext> DeviceContext::create(int device) {
    return std::shared_ptr<DeviceContext>(new DeviceContext(device));
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
        ConstantArenas& all = constant_arenas();
        std::lock_guard<std::mutex> lock(all.mutex);
        std::unique_ptr<Arena>& a = all.arenas[{device_, symbol}];
        if (!a) {
            a = std::make_unique<Arena>();
            a->symbol = symbol;
            a->capacity = capacity;
            a->mutex = &all.mutex;
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
