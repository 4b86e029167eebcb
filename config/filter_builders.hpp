// The functions of the filter table (config/filter_registry.cpp) that turn one filter's typed
// option values into its FilterPlan, and the option declarations several filters share.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "config/filter_registry.hpp"

namespace vf {

OptionDef border_option();
// The border of FFmpeg's convolution filters: border_option's rules and `ffmpeg`, FFmpeg 5.1's
// edge for the kernel's size (Border::MirrorRepeat for 3x3, mirror for larger ones).
OptionDef ffmpeg_border_option();
// FFmpeg's unsharp and boxblur: `exact` (the default) or FFmpeg 5.1's own integer arithmetic.
OptionDef arithmetic_option(const std::string& exact, const std::string& ffmpeg);
OptionDef planes_option(const std::string& def);
OptionDef rest_option(const std::string& def);
std::vector<OptionDef> gradient_options();
Border parse_border(const OptionValues& o);
// A convolution of kh rows of kw taps (finalize_convolve done).
PlaneOp convolve_op(int kw, int kh, std::vector<double> k, double rdiv, double bias, Border border);

// compass: gx turned to 8 directions, the largest response kept (GradientOp).
FilterPlan gradient_plan(const std::string& name, const OptionValues& o, std::array<int, 9> gx, std::array<int, 9> gy,
                         float divisor, bool compass = false);
FilterPlan build_identity(const OptionValues& o);
FilterPlan build_gaussian(const OptionValues& o);
FilterPlan build_gblur(const OptionValues& o);
FilterPlan build_avgblur(const OptionValues& o);
FilterPlan build_box(const OptionValues& o);
FilterPlan build_sharpen(const OptionValues& o);
FilterPlan build_emboss(const OptionValues& o);
FilterPlan build_laplacian(const OptionValues& o);
// config/luma_chroma_builders.cpp
FilterPlan build_unsharp(const OptionValues& o);
FilterPlan build_boxblur(const OptionValues& o);
FilterPlan build_convolution(const OptionValues& o);

}  // namespace vf
