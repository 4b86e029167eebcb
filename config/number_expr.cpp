#include "config/number_expr.hpp"

#include <cctype>
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

namespace {

#ifdef VF_HAVE_AV_EXPR
// FFmpeg's expression functions that are not one step each: while (a loop the string can make
// endless), root and taylor (iterate up to a count the string gives), ld and st (state kept between
// evaluations), random and time (not a number of the string alone) and print (writes to the log).
// Every other function of libavutil/eval.c costs one step, so a bounded string is a bounded cost.
const char* const kCostlyNames[] = {"while", "root", "taylor", "ld", "st", "random", "time", "print"};

// The first name in `text` that is one of kCostlyNames, or "".
// Numbers (with exponents, hexadecimal digits and SI suffixes such as 2k or 1Mi) are skipped.
std::string costly_name(const std::string& text) {
    const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            while (i < text.size() && (alnum(text[i]) || text[i] == '.' ||
                                       ((text[i] == '+' || text[i] == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E'))))
                ++i;
            continue;
        }
        if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') {
            ++i;
            continue;
        }
        const size_t start = i;
        while (i < text.size() && alnum(text[i])) ++i;
        const std::string name = text.substr(start, i - start);
        for (const char* costly : kCostlyNames)
            if (name == costly) return name;
    }
    return "";
}
#endif

// The limits every expression meets before it is parsed: not empty, bounded, and (with FFmpeg) no
// function whose cost or result the text alone does not bound.
bool acceptable_text(const std::string& text, std::string* why) {
    if (text.find_first_not_of(" \t") == std::string::npos) {
        *why = "is empty";
        return false;
    }
    // Bounded before FFmpeg sees it: a short string of one-step functions evaluates in microseconds,
    // so a value from an API client cannot spin or grow without end.
    if (text.size() > kMaxExpressionLength) {
        *why = "is longer than " + std::to_string(kMaxExpressionLength) + " characters";
        return false;
    }
#ifdef VF_HAVE_AV_EXPR
    if (const std::string name = costly_name(text); !name.empty()) {
        *why = "uses " + name + "(), which vfilter does not evaluate (no loops, stored values, random numbers or "
               "printing: a value must cost the same every time)";
        return false;
    }
#endif
    return true;
}

}  // namespace

#ifdef VF_HAVE_AV_EXPR
struct NumberExpr::Parsed {
    AVExpr* expr = nullptr;
    ~Parsed() { av_expr_free(expr); }
};
#else
struct NumberExpr::Parsed {
    double value = 0;  // this build reads plain numbers and fractions: nothing to evaluate later
};
#endif

bool NumberExpr::parse(const std::string& text, const std::vector<std::string>& names, NumberExpr* out, std::string* why) {
    if (!acceptable_text(text, why)) return false;
    auto parsed = std::make_shared<Parsed>();
#ifdef VF_HAVE_AV_EXPR
    std::vector<const char*> c_names;
    for (const std::string& n : names) c_names.push_back(n.c_str());
    c_names.push_back(nullptr);
    if (av_expr_parse(&parsed->expr, text.c_str(), c_names.data(), nullptr, nullptr, nullptr, nullptr, AV_LOG_DEBUG - AV_LOG_ERROR,
                      nullptr) < 0) {
        *why = "is not a number or an expression FFmpeg can evaluate";
        return false;
    }
#else
    (void)names;
    if (!evaluate_number(text, &parsed->value, why)) return false;
#endif
    out->parsed_ = std::move(parsed);
    out->text_ = text;
    return true;
}

bool NumberExpr::evaluate(const std::vector<double>& values, double* value, std::string* why) const {
    if (!parsed_) {
        *why = "is empty";
        return false;
    }
#ifdef VF_HAVE_AV_EXPR
    // Without st() and ld() an evaluation only reads the parsed tree.
    const double v = av_expr_eval(parsed_->expr, values.data(), nullptr);
#else
    (void)values;
    const double v = parsed_->value;
#endif
    if (!std::isfinite(v)) {
        *why = "is not finite";
        return false;
    }
    *value = v;
    return true;
}

double NumberExpr::value_of(const std::vector<double>& values) const {
    if (!parsed_) return NAN;
#ifdef VF_HAVE_AV_EXPR
    return av_expr_eval(parsed_->expr, values.data(), nullptr);
#else
    (void)values;
    return parsed_->value;
#endif
}

bool evaluate_number(const std::string& text, double* value, std::string* why, const ExprVariables& variables) {
    if (!acceptable_text(text, why)) return false;
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
