// What a filter chain must produce for a frame, computed with the reference implementation.
#pragma once

#include <random>
#include <string>

#include "media/frame.hpp"
#include "media/frame_pool.hpp"

namespace vf::test {

// Applies the chain to a copy of `in` with reference_apply, channel by channel.
AvFramePtr reference_filter(const AVFrame* in, const std::string& chain);

// Number of channel samples that differ between two frames of the same size (layouts may
// differ, e.g. nv12 vs yuv420p); `skip_last` leaves out the last column and row of each channel.
long frame_differences(const AVFrame* a, const AVFrame* b, bool skip_last = false, std::string* first = nullptr);

// A frame from `pool` filled with uniformly random samples of its depth, with the given pts.
AvFramePtr random_frame(FramePool& pool, std::mt19937& rng, int64_t pts);

}  // namespace vf::test
