// A filter chain for the planes Python hands over: each plane is one channel of its own, filtered
// as the command line filters a gray frame (with each filter's first-plane operation).
#pragma once

#include <string>
#include <vector>

#include "kernels/plan.hpp"

namespace vf {

// The chain for planes of width x height; `border` (mirror, replicate, zero; empty: each
// filter's own) applies to every filter. Throws Error(Usage) for a bad chain or border.
std::vector<FilterPlan> plane_chain(const std::string& chain_text, int width, int height, const std::string& border,
                                    bool ffmpeg_defaults);

}  // namespace vf
