// One GPU's NVDEC state, owned by the GPU runtime (pipeline/gpu_runtime.hpp) and handed to the
// sources that decode on that GPU: the gate that lets `slots` decoders call NVDEC at once
// (decode/nvdec_gate.hpp; none when slots is 0) and the pool of decoders that streams share
// (decode/nvdec_decoder_pool.hpp). Each is made when a stream first asks for it and freed with
// its last stream; the device holds them weakly, so an idle GPU keeps no decoder, thread or
// retained context.
#pragma once

#include <memory>
#include <mutex>

#include "decode/nvdec_decoder_pool.hpp"
#include "decode/nvdec_gate.hpp"

namespace vf {

class NvdecDevice {
public:
    NvdecDevice(int gpu, int slots) : gpu_(gpu), slots_(slots) {}
    NvdecDevice(const NvdecDevice&) = delete;
    NvdecDevice& operator=(const NvdecDevice&) = delete;

    int gpu() const { return gpu_; }
    int slots() const { return slots_; }
    // The GPU's gate, or nullptr when its decoders are not gated (slots 0).
    std::shared_ptr<NvdecGate> gate();
    // The GPU's pool of shared decoders.
    std::shared_ptr<NvdecDecoderPool> pool();
    // The pool while some stream holds it (for /metrics), else nullptr.
    std::shared_ptr<NvdecDecoderPool> live_pool() const;

private:
    const int gpu_, slots_;
    mutable std::mutex mutex_;
    std::weak_ptr<NvdecGate> gate_;
    std::weak_ptr<NvdecDecoderPool> pool_;
};

}  // namespace vf
