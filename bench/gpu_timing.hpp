// How the GPU benchmark times a call (CUDA events, the L2 evicted before each, median of N) and the
// ceilings it compares against (copy bandwidth, the FP32 FMA rate, an empty launch), measured in
// the same run.
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace vf::bench {

// Median of `iters` event-timed calls of fn(i) after `warm` untimed ones. Before each timed call, a
// 256 MB memset: it evicts the L2 (so no input is cached) and keeps the GPU busy while the host
// enqueues the call, so the events measure GPU time, not the host's launch latency.
float median_ms(cudaStream_t s, int iters, int warm, const std::function<void(int)>& fn);

// Calls made back to back, as a pipeline makes them: `iters` calls on rotating inputs between two
// events, no flush and no wait between them, so each launch's fixed cost overlaps the previous
// call's work. The mean per call.
float back_to_back_ms(cudaStream_t s, int iters, const std::function<void(int)>& fn);

// The same call timed as an application sees it: from an idle stream, launch cost included.
float median_ms_cold_launch(cudaStream_t s, int iters, const std::function<void(int)>& fn);

struct Ceilings {
    double bytes_per_ms = 0;  // device memory, read + written
    double flop_per_ms = 0;   // FP32 FMA = 2 FLOP
    double empty_ms = 0;      // an empty one-block kernel between the events: the fixed cost of any launch
};

Ceilings measure_ceilings(cudaStream_t s);

}  // namespace vf::bench
