#include "decode/nvdec_device.hpp"

namespace vf {

std::shared_ptr<NvdecGate> NvdecDevice::gate() {
    if (slots_ <= 0) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto live = gate_.lock()) return live;
    auto made = std::make_shared<NvdecGate>(slots_);
    gate_ = made;
    return made;
}

std::shared_ptr<NvdecDecoderPool> NvdecDevice::pool() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto live = pool_.lock()) return live;
    auto made = std::make_shared<NvdecDecoderPool>(gpu_);
    pool_ = made;
    return made;
}

std::shared_ptr<NvdecDecoderPool> NvdecDevice::live_pool() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pool_.lock();
}

}  // namespace vf
