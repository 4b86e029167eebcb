// How many of one GPU's NVDEC decoders call into NVDEC at once (docs/benchmarks.md, "Decoders on
// NVDEC and the CPU", has the measurements):
//   - the driver creates decoders one at a time for the whole machine, and the threads that wait
//     for it do so in a polling loop of the driver's (cores busy while cameras start, NVDEC idle);
//   - a decoded frame is mapped (FFmpeg's receive) by waiting in that same polling loop, so CPU
//     time a frame grows with the decoders waiting at once: time the CPU decoders and filters lose.
// The gate lets one decoder be created at a time and at most `slots` decoders decode at once;
// the others sleep on a condition variable in arrival order (no CPU, no starving). A gate per
// GPU, made by its NvdecDevice (decode/nvdec_device.hpp) with the runtime's slots, shared by the
// streams decoding on it and gone with the last; it holds no GPU state. Off by default: where the
// cores are full (CPU decoders beside NVDEC) the slots idle NVDEC, a decoder holding one waiting
// for a core.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

namespace vf {

class NvdecGate {
public:
    explicit NvdecGate(int slots);
    NvdecGate(const NvdecGate&) = delete;
    NvdecGate& operator=(const NvdecGate&) = delete;

    // Held while one decoder calls FFmpeg's decoder: `creating` (no frame out yet: the call may
    // create the NVDEC decoder) takes the creation turn, else a decode slot.
    class Pass {
    public:
        Pass(NvdecGate* gate, bool creating);
        ~Pass();
        Pass(const Pass&) = delete;
        Pass& operator=(const Pass&) = delete;

    private:
        NvdecGate* gate_;
        bool creating_;
    };

    int slots() const { return slots_; }
    int64_t waits() const;  // calls that had to wait for a slot or the creation turn

private:
    struct Waiter {
        std::condition_variable cv;
        bool admitted = false;
    };
    void enter(bool creating);
    void leave(bool creating);

    const int slots_;
    mutable std::mutex mutex_;
    int free_slots_;
    bool creator_inside_ = false;
    std::deque<Waiter*> slot_queue_, create_queue_;  // first come, first served; woken one at a time
    int64_t waits_ = 0;
};

}  // namespace vf
