// Numbers in filter strings, read as FFmpeg reads its numeric options: an expression evaluated by
// libavutil's av_expr (fractions such as 1/9, arithmetic, PI and E, SI suffixes such as 2k).
// Builds without FFmpeg (the kernels-only build of the GPU machine) take plain numbers and
// fractions a/b.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vf {

// Names an expression may use, with their values (boxblur's w, h, cw, ch, hsub, vsub).
using ExprVariables = std::vector<std::pair<std::string, double>>;

// The value of `text`; false with the reason when it is not a number or an expression of one.
bool evaluate_number(const std::string& text, double* value, std::string* why, const ExprVariables& variables = {});

}  // namespace vf
