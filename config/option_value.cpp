#include "config/option_value.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/error.hpp"

namespace vf {
namespace {

[[noreturn]] void refuse_value(const std::string& msg) { fail(ErrorCategory::Usage, msg); }


double read_number(const std::string& filter, const std::string& key, const OptionDef& d, const std::string& v) {
    double x = 0;
    std::string why;
    if (!evaluate_number(v, &x, &why)) refuse_value("filter '" + filter + "': option " + key + "='" + v + "' " + why);
    if (d.type == OptionType::Integer && x != std::floor(x))
        refuse_value("filter '" + filter + "': " + key + "=" + v + " must be a whole number");
    if (x < d.min || x > d.max)
        refuse_value("filter '" + filter + "': " + key + "=" + v + " is out of range [" + format_number(d.min) + ", " + format_number(d.max) + "]");
    return x;
}

double read_planes(const std::string& p) {
    if (p == "luma" || p == "y") return 1;
    if (p == "chroma") return 6;
    if (p == "all") return 7;
    char* end = nullptr;
    const long v = std::strtol(p.c_str(), &end, 0);
    if (end == p.c_str() || *end != '\0' || v < 0 || v > 15)
        refuse_value("option planes='" + p + "': expected luma, chroma, all or a mask 0..15");
    return static_cast<double>(v);
}

}  // namespace

std::string format_number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

const std::vector<std::string>& geometry_names() {
    static const std::vector<std::string> names = {"w", "h", "cw", "ch", "hsub", "vsub"};
    return names;
}

std::vector<double> geometry_values(const FrameGeometry& g) {
    const int cw = g.width >> g.log2_chroma_w, ch = g.height >> g.log2_chroma_h;  // FFmpeg's cw and ch (rounded down)
    return {double(g.width), double(g.height), double(cw), double(ch), double(1 << g.log2_chroma_w), double(1 << g.log2_chroma_h)};
}

OptionValue read_option_value(const std::string& filter, const std::string& key, const OptionDef& d, const std::string& v) {
    switch (d.type) {
    case OptionType::Number:
    case OptionType::Integer:
        return read_number(filter, key, d, v);
    case OptionType::Choice:
        if (std::find(d.choices.begin(), d.choices.end(), v) == d.choices.end()) {
            std::string c;
            for (const auto& s : d.choices) c += (c.empty() ? "" : "|") + s;
            refuse_value("filter '" + filter + "': " + key + "='" + v + "' is not one of " + c);
        }
        return v;
    default:
        break;
    }
    if (v.empty()) refuse_value("filter '" + filter + "': " + key + "= is empty");
    switch (d.type) {
    case OptionType::Planes:
        return read_planes(v);
    case OptionType::Expression: {
        NumberExpr e;
        std::string why;
        if (!NumberExpr::parse(v, geometry_names(), &e, &why))
            refuse_value("filter '" + filter + "': " + key + "='" + v + "' " + why + " (it may use w, h, cw, ch, hsub, vsub)");
        return e;
    }
    case OptionType::Matrix: {
        std::string t = v;
        std::replace(t.begin(), t.end(), '|', ' ');
        return parse_kernel_text(t, filter + " " + key, false);  // one line: width = count
    }
    default:
        return v;
    }
}

}  // namespace vf
