// NPP timed beside vfilter in the GPU benchmark, where the toolkit has it (VF_HAVE_NPP).
#pragma once

#include <cuda_runtime.h>

#include <random>

#include "bench/bench_planes.hpp"

namespace vf::bench {

// NPP's nearest equivalent of the case on 8-bit planes (replicate border, the one NPP offers).
// Times it both ways: `isolated` as median_ms, `back_to_back` as back_to_back_ms.
void time_npp(const Case& c, const PlaneSet& ps, cudaStream_t s, int iters, std::mt19937& rng, float* isolated,
              float* back_to_back);

}  // namespace vf::bench
