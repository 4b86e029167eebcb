// A filter chain for the planes Python hands over: each plane is one channel of its own, filtered
// as the command line filters a gray frame (with each filter's first-plane operation).
#pragma once

#include <string>
#include <vector>

#include "config/chain_spec.hpp"
#include "kernels/plan.hpp"

namespace vf {

// The border `name` names (mirror, replicate, zero); false for "" (each filter's own). Throws
// Error(Usage) for another name.
bool border_named(const std::string& name, Border* border);

// The compiled chain planned for planes of width x height; `border` (when `forced`) applies to
// every filter. Throws Error(Usage) for a chain that does not fit the planes.
std::vector<FilterPlan> plane_chain(const ChainSpec& spec, int width, int height, bool forced, Border border,
                                    bool ffmpeg_defaults);

}  // namespace vf
