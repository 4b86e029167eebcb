// One option of a filter: how the table declares it (OptionDef) and the value a filter string gave
// it, held as its own type (OptionValue): numbers as numbers, a choice as the word chosen, a
// matrix as its coefficients, a radius of the frame's size as a parsed expression. Values are read
// from text once, where the chain is compiled (config/chain_spec.hpp), and never printed back.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "config/kernel_file.hpp"
#include "config/number_expr.hpp"

namespace vf {

// Number: a real number; Integer: a whole one; Choice: one word of `choices`; Text: any text (a
// file name); Planes: luma, chroma, all or a bit mask; Expression: a number of the frame's
// geometry (w, h, cw, ch, hsub, vsub), evaluated once the input is known; Matrix: coefficients
// separated by spaces or '|'.
enum class OptionType { Number, Integer, Choice, Text, Planes, Expression, Matrix };

struct OptionDef {
    std::string name;
    OptionType type;
    std::string default_value;  // "" = not set
    double min = 0, max = 0;    // Number, Integer
    std::vector<std::string> choices;  // Choice
    std::string help;
    bool per_plane = false;     // also accepted as 0name, 1name, 2name for one channel
};

// double: Number, Integer (whole), Planes (the mask); std::string: Choice, Text; NumberExpr:
// Expression; KernelMatrix: Matrix (one row: width = the count, shaped by the filter).
using OptionValue = std::variant<double, std::string, NumberExpr, KernelMatrix>;

// The frames a chain will filter, for options that depend on them (boxblur's radius expressions
// of w, h, cw, ch). Unknown (width 0) until the input is open: such options are then only
// checked, and the chain is planned again once the input is known.
struct FrameGeometry {
    int width = 0, height = 0;
    int log2_chroma_w = 1, log2_chroma_h = 1;  // 4:2:0
    bool rgb = false;  // G, B and R planes (config/chain_spec.cpp, plan_for_rgb: every one filtered)
    bool known() const { return width > 0 && height > 0; }
};

// A number as messages show it (the shortest form, e.g. 0.5, 65535).
std::string format_number(double v);

// The names an Expression may use, in the order geometry_values gives their values.
const std::vector<std::string>& geometry_names();
// FFmpeg's values of those names for `g`: w, h, cw and ch (rounded down), hsub, vsub.
std::vector<double> geometry_values(const FrameGeometry& g);

// `text` read as option `key` (as written, e.g. 0m) of `filter` for its declared type, range and
// choices. Throws Error(Usage) naming the filter and option and saying what is allowed.
OptionValue read_option_value(const std::string& filter, const std::string& key, const OptionDef& def, const std::string& text);

}  // namespace vf
