// Opening a job whose input may not answer yet: a camera still booting after a power cut, a
// switch port coming up. serve waits for such inputs (and a single run with --wait-for-input);
// errors that trying again cannot mend are reported at once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "app/run/job.hpp"
#include "config/options.hpp"

namespace vf {

class Error;

// One failed attempt, as the wait reports it.
struct InputWait {
    std::string reason;     // what the attempt failed with
    int attempts = 0;       // made so far
    double next_in_s = 0;   // until the next one
};

// Whether trying to open the input again can mend `e`: an input error that is not lasting
// (credentials refused, no such stream, no decoder, a malformed address or a protocol not
// allowed), on an input that is not a local file or pipe (a missing or broken file stays so).
bool input_may_come_up(const Error& e, const std::string& url);

// Makes the Job for `options`, reporting what `reports` asks. When `wait` and its input cannot be
// opened for a reason that may pass, calls on_wait and tries again after the reconnect backoff
// (options.input.reconnect_delay_s, doubled per attempt up to 30 s), at most reconnect_max
// attempts (-1: forever; 0: no waiting); then throws the last error. Returns nullptr when `stop`
// is set while it waits. The job's GPU work runs on `runtime` (empty: a runtime of its own).
std::unique_ptr<Job> make_job_when_input_opens(const RunOptions& options, const JobReports& reports, bool wait,
                                               const std::atomic<bool>& stop,
                                               const std::function<void(const InputWait&)>& on_wait,
                                               std::shared_ptr<GpuRuntime> runtime = nullptr);

}  // namespace vf
