// Numbers in filter strings, read as FFmpeg reads its numeric options: an expression evaluated by
// libavutil's av_expr (fractions such as 1/9, arithmetic, PI and E, SI suffixes such as 2k).
// Builds without FFmpeg (the kernels-only build of the GPU machine) take plain numbers and
// fractions a/b.
#pragma once

#include <memory>
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

// An expression of named variables (boxblur's radius of w, h, cw, ch), parsed once when the
// filter string is read and evaluated each time the variables' values are known (the input's
// frames): the same rules as evaluate_number. Copies share the parsed form; evaluating is safe
// from any thread (no stored values: st and ld are refused).
class NumberExpr {
public:
    // False with the reason when `text` is not an expression of `names`.
    static bool parse(const std::string& text, const std::vector<std::string>& names, NumberExpr* out, std::string* why);
    // Its value for `values` (in the order of the names it was parsed with); false with the reason
    // when that is not finite.
    bool evaluate(const std::vector<double>& values, double* value, std::string* why) const;
    // Its value for `values` as FFmpeg computes it, NAN and infinities included (enable=: a NAN
    // time gives NAN, which disables).
    double value_of(const std::vector<double>& values) const;
    const std::string& text() const { return text_; }

private:
    struct Parsed;
    std::shared_ptr<const Parsed> parsed_;
    std::string text_;
};

}  // namespace vf
