#include "app/run/input_wait.hpp"


#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "decode/live_input.hpp"
#include "media/protocols.hpp"

namespace vf {

bool input_may_come_up(const Error& e, const std::string& url) {
    if (e.category() != ErrorCategory::Input || e.lasting()) return false;
    const std::string proto = input_protocol(url);
    return is_capture_device(url) || (proto != "file" && proto != "pipe");
}

std::unique_ptr<Job> make_job_when_input_opens(const RunOptions& options, const JobReports& reports, bool wait,
                                               const std::atomic<bool>& stop,
                                               const std::function<void(const InputWait&)>& on_wait,
                                               std::shared_ptr<GpuRuntime> runtime) {
    const int max = options.input.reconnect_max;
    double delay = options.input.reconnect_delay_s;
    for (int attempts = 1;; ++attempts) {
        try {
            return std::make_unique<Job>(options, reports, runtime);
        } catch (const Error& e) {
            if (!wait || !input_may_come_up(e, options.input.url) || (max >= 0 && attempts > max) || stop) throw;
            spdlog::warn("{}; waiting for it: next attempt in {:.1f} s", e.what(), delay);
            on_wait(InputWait{e.what(), attempts, delay});
        }
        if (!sleep_unless_stopped(delay, stop)) return nullptr;
        delay = next_reconnect_delay(delay);
    }
}

}  // namespace vf
