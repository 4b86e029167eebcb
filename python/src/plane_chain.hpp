// A filter chain for the planes Python hands over: each plane is one channel of its own, filtered
// as the command line filters a gray frame (with each filter's first-plane operation).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/chain_spec.hpp"
#include "kernels/plan.hpp"

namespace vf {

// The border `name` names (mirror, replicate, zero); false for "" (each filter's own). Throws
// Error(Usage) for another name (ffmpeg is taken by with_ffmpeg_border).
bool border_named(const std::string& name, Border* border);

// border=ffmpeg: FFmpeg 5.1's own edge, which the command line's FFmpeg convolution filters
// (sobel, prewitt, scharr, roberts, kirsch, convolution) take as their border= option.
constexpr const char* kFfmpegBorderName = "ffmpeg";

// `spec` with border=ffmpeg on every filter, as the command line's string would set it. Throws
// Error(Usage) naming a filter that does not take it.
std::shared_ptr<const ChainSpec> with_ffmpeg_border(const ChainSpec& spec);

// The compiled chain planned for planes of width x height; `border` (when `forced`) applies to
// every filter. Throws Error(Usage) for a chain that does not fit the planes.
std::vector<FilterPlan> plane_chain(const ChainSpec& spec, int width, int height, bool forced, Border border,
                                    bool ffmpeg_defaults);

}  // namespace vf
