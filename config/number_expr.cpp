#include "config/number_expr.hpp"

#include <cmath>
#include <cstdlib>

#ifdef VF_HAVE_AV_EXPR
extern "C" {
#include <libavutil/error.h>
#include <libavutil/eval.h>
#include <libavutil/log.h>
}
#endif

namespace vf {

bool evaluate_number(const std::string& text, double* value, std::string* why, const ExprVariables& variables) {
    if (text.find_first_not_of(" \t") == std::string::npos) {
        *why = "is empty";
        return false;
    }
#ifdef VF_HAVE_AV_EXPR
    double v = 0;
    std::vector<const char*> names;
    std::vector<double> values;
    for (const auto& [name, val] : variables) names.push_back(name.c_str()), values.push_back(val);
    names.push_back(nullptr);
    // FFmpeg's own complaint is logged at debug level: the caller says what is wrong, in one line.
    const int err = av_expr_parse_and_eval(&v, text.c_str(), names.data(), values.data(), nullptr, nullptr, nullptr, nullptr,
                                           nullptr, AV_LOG_DEBUG - AV_LOG_ERROR, nullptr);
    if (err < 0) {
        *why = "is not a number or an expression FFmpeg can evaluate";
        return false;
    }
#else
    (void)variables;  // plain numbers only: no names to read
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '/') {
        const char* den = end + 1;
        const double d = std::strtod(den, &end);
        if (end == den || d == 0) end = const_cast<char*>(den) - 1;
        else v /= d;
    }
    if (end == text.c_str() || *end != '\0') {
        *why = "is not a number (this build reads plain numbers and fractions a/b)";
        return false;
    }
#endif
    if (!std::isfinite(v)) {
        *why = "is not finite";
        return false;
    }
    *value = v;
    return true;
}

}  // namespace vf
