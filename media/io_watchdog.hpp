// Lets FFmpeg's blocking input calls give up, so a dead camera or a stalled stream never hangs
// vfilter: a deadline armed before each blocking call (open, probe, read) and the source's stop
// flag (Ctrl-C, --frames), both checked by FFmpeg's interrupt callback.
#pragma once

#include <atomic>
#include <cstdint>

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

// How long a network input or output may stay silent before vfilter gives up, unless --timeout says.
constexpr double kDefaultNetworkTimeoutS = 10;

class IoWatchdog {
public:
    // timeout_s <= 0: no deadline, only the stop flag.
    IoWatchdog(double timeout_s, const std::atomic<bool>* stop) : timeout_s_(timeout_s), stop_(stop) {}
    IoWatchdog(const IoWatchdog&) = delete;
    IoWatchdog& operator=(const IoWatchdog&) = delete;

    AVIOInterruptCB callback() { return AVIOInterruptCB{&IoWatchdog::interrupt, this}; }
    void arm();                      // before a blocking call
    bool expired() const { return expired_; }  // the deadline ended the last blocking call
    double timeout_s() const { return timeout_s_; }

private:
    static int interrupt(void* self);
    double timeout_s_;
    const std::atomic<bool>* stop_;
    std::atomic<int64_t> deadline_us_{0};
    std::atomic<bool> expired_{false};
};

}  // namespace vf
