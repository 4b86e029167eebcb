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

// The longest expression evaluated: far more than any filter option needs.
constexpr size_t kMaxExpressionLength = 256;

// The value of `text`; only FFmpeg's one-step functions and constants (no while, root, taylor,
// ld, st or random: nothing whose cost or result the string alone does not bound), and finite; false with the reason when it is not a number or an expression of one.
bool evaluate_number(const std::string& text, double* value, std::string* why, const ExprVariables& variables = {});

}  // namespace vf
