#include "config/quantities.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vf {

namespace {

// The number at the start of `text` and what follows it; false for no number, a negative one or
// one that is not finite.
bool leading_number(const std::string& text, double* value, std::string* rest) {
    if (text.empty() || text[0] == '-' || text[0] == '+' || std::isspace(static_cast<unsigned char>(text[0]))) return false;
    char* end = nullptr;
    *value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(*value)) return false;
    *rest = std::string(end);
    return true;
}

}  // namespace

bool parse_age_s(const std::string& text, double* seconds) {
    double v = 0;
    std::string unit;
    if (!leading_number(text, &v, &unit)) return false;
    double scale = 0;
    if (unit.empty() || unit == "s") scale = 1;
    else if (unit == "m") scale = 60;
    else if (unit == "h") scale = 3600;
    else if (unit == "d") scale = 86400;
    else if (unit == "w") scale = 7 * 86400;
    else return false;
    *seconds = v * scale;
    return *seconds > 0 && *seconds < 1e11;
}

bool parse_bytes(const std::string& text, int64_t* bytes) {
    double v = 0;
    std::string unit;
    if (!leading_number(text, &v, &unit)) return false;
    if (unit.size() > 1 && (unit.substr(1) == "B" || unit.substr(1) == "iB")) unit = unit.substr(0, 1);
    double scale = 0;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "K" || unit == "k") scale = 1024.0;
    else if (unit == "M") scale = 1024.0 * 1024;
    else if (unit == "G") scale = 1024.0 * 1024 * 1024;
    else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
    else return false;
    const double b = std::round(v * scale);
    if (b < 1 || b > 9e18) return false;
    *bytes = static_cast<int64_t>(b);
    return true;
}

bool parse_free_space_floor(const std::string& text, FreeSpaceFloor* floor) {
    if (!text.empty() && text.back() == '%') {
        double p = 0;
        std::string rest;
        if (!leading_number(text.substr(0, text.size() - 1), &p, &rest) || !rest.empty() || p <= 0 || p >= 100) return false;
        *floor = FreeSpaceFloor{p / 100, 0};
        return true;
    }
    int64_t b = 0;
    if (!parse_bytes(text, &b)) return false;
    *floor = FreeSpaceFloor{0, b};
    return true;
}

std::string format_bytes(int64_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (std::fabs(v) >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[64];
    if (u == 0) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

}  // namespace vf
