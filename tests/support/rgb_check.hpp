// RGB through the command line, checked plane by plane: a random-noise clip of an RGB format at
// an odd size is filtered by vfilter, and the output must keep the format, hold in each of its
// G, B and R planes the reference filter applied to that plane of the input, and carry the
// input's alpha (or rgb0's padding bytes) unchanged. Shared by the CPU and the GPU tests.
#pragma once

#include <string>
#include <vector>

#include "config/chain_spec.hpp"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
}

namespace vf::test {

// The RGB formats vfilter filters as RGB: packed (8 and 16 bits) and planar (8 to 16 bits).
const std::vector<AVPixelFormat>& rgb_formats();

// A 3-frame 97x61 rawvideo clip of random `format` samples (alpha and padding bytes too) in `dir`;
// returns its path.
std::string write_rgb_clip(const std::string& dir, AVPixelFormat format);

// Checks `out`, written by vfilter from `clip` with `filter` (one filter) and `defaults`, with
// gtest's EXPECTs: the clip's pixel format, each colour plane equal to the filter's luma operation
// (as planned for YUV) applied to that plane of the clip, alpha and padding bytes unchanged.
// Returns the frames compared.
int check_rgb_output(const std::string& clip, const std::string& out, const std::string& filter, FilterDefaults defaults,
                     const std::string& what);

// Writes a 3-frame rawvideo clip of `format`, runs `vfilter --device DEVICE -f FILTER` on it
// (`extra` options before the input) and checks the output against the per-plane reference with
// gtest's EXPECTs. `filter` is one filter whose luma operation (as planned for YUV, with FFmpeg's
// defaults where `extra` holds --compat ffmpeg) every colour plane must get. Returns the frames
// compared.
int check_rgb_through_cli(AVPixelFormat format, const std::string& filter, const std::string& device,
                          const std::vector<std::string>& extra = {});

// Samples that differ in the fourth sample (alpha, or rgb0's padding) of two frames of the same
// size whose formats have one; -1 when either has none.
long fourth_sample_differences(const AVFrame* a, const AVFrame* b);

}  // namespace vf::test
