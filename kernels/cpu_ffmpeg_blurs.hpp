// The CPU path of FFmpeg's own arithmetic (OpKind::BoxPasses, OpKind::UnsharpFixed): the same
// values as kernels/reference_ffmpeg.hpp, computed as FFmpeg does, with running and separable
// sums, over the CPU backend's threads. Tested against the reference (tests/kernels/).
#pragma once

#include <cstdint>
#include <vector>

#include "common/plane.hpp"
#include "common/thread_pool.hpp"
#include "kernels/plan.hpp"

namespace vf {

// Every row's passes (rows spread over the pool), kept in `between` (w x h values), then every
// column's (columns spread over the pool), written to dst.
void box_passes_cpu(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, ThreadPool& pool,
                    std::vector<int32_t>& between);

// Output rows y0 .. y1 - 1: the binomial sums across, then down, in 32 bits as FFmpeg sums them.
// `sums` is the worker's scratch.
void unsharp_fixed_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1,
                        std::vector<uint32_t>& sums);

}  // namespace vf
