#include "media/io_watchdog.hpp"

extern "C" {
#include <libavutil/time.h>
}

namespace vf {

void IoWatchdog::arm() {
    expired_ = false;
    deadline_us_ = timeout_s_ > 0 ? av_gettime_relative() + static_cast<int64_t>(timeout_s_ * 1e6) : 0;
}

int IoWatchdog::interrupt(void* opaque) {
    auto* self = static_cast<IoWatchdog*>(opaque);
    if (self->stop_ && *self->stop_) return 1;
    const int64_t deadline = self->deadline_us_;
    if (deadline > 0 && av_gettime_relative() > deadline) {
        self->expired_ = true;
        return 1;
    }
    return 0;
}

}  // namespace vf
