// The calling thread's timer slack (Linux): how much later than asked its sleeps, and the timeouts
// of poll and the like, may end, so that the kernel can wake several together. NVIDIA's driver
// waits for each NVDEC frame in a loop of short sleeps (docs/benchmarks.md, "Decoders on NVDEC and
// the CPU"); more slack on the thread that waits means fewer turns of that loop.
#pragma once

namespace vf {

// Sets it to `us` microseconds; 0 restores the thread's default (50 us unless inherited).
// False where the system refuses, or has no such setting.
bool set_thread_timer_slack_us(int us);
// The calling thread's, in microseconds (rounded down); -1 where there is no such setting.
int thread_timer_slack_us();

}  // namespace vf
