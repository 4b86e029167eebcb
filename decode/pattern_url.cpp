#include "decode/pattern_url.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "common/error.hpp"

namespace vf {
namespace {

constexpr const char* kPrefix = "pattern://";
constexpr const char* kTakes = "pattern:// takes size=WxH, rate=FPS, motion=ball|bars|checker, seed=N, clock=start|wall, e.g. "
                               "pattern://?size=1280x720&rate=30&motion=ball";

[[noreturn]] void refuse(const std::string& what) { fail(ErrorCategory::Usage, "input " + what + " (" + kTakes + ")"); }

long number(const std::string& key, const std::string& v, long lo, long hi) {
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno == ERANGE || n < lo || n > hi)
        refuse("'" + key + "=" + v + "': expected a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
    return n;
}

}  // namespace

bool is_pattern_url(const std::string& input) { return input.rfind(kPrefix, 0) == 0; }

const char* pattern_motion_name(PatternMotion m) {
    switch (m) {
    case PatternMotion::Ball: return "ball";
    case PatternMotion::Bars: return "bars";
    case PatternMotion::Checker: return "checker";
    }
    return "?";
}

PatternOptions parse_pattern_url(const std::string& url) {
    if (!is_pattern_url(url)) refuse("'" + url + "' is not a pattern");
    std::string rest = url.substr(std::string(kPrefix).size());
    if (!rest.empty() && rest[0] != '?') refuse("'" + url + "': parameters follow a '?'");
    if (!rest.empty()) rest.erase(0, 1);
    PatternOptions o;
    std::set<std::string> seen;
    for (size_t at = 0; at < rest.size();) {
        const size_t amp = rest.find('&', at);
        const std::string item = rest.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
        at = amp == std::string::npos ? rest.size() : amp + 1;
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        if (eq == std::string::npos) refuse("'" + item + "': expected NAME=VALUE");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (!seen.insert(key).second) refuse("'" + key + "' is given twice");
        if (key == "size") {
            const size_t x = value.find('x');
            if (x == std::string::npos) refuse("'size=" + value + "': expected WIDTHxHEIGHT");
            o.width = static_cast<int>(number(key, value.substr(0, x), 16, 7680));
            o.height = static_cast<int>(number(key, value.substr(x + 1), 16, 4320));
            if (o.width % 2 || o.height % 2) refuse("'size=" + value + "': width and height must be even (4:2:0)");
        } else if (key == "rate") {
            o.rate = static_cast<int>(number(key, value, 1, 240));
        } else if (key == "motion") {
            if (value == "ball") o.motion = PatternMotion::Ball;
            else if (value == "bars") o.motion = PatternMotion::Bars;
            else if (value == "checker") o.motion = PatternMotion::Checker;
            else refuse("'motion=" + value + "': expected ball, bars or checker");
        } else if (key == "clock") {
            if (value == "wall") o.wall_clock = true;
            else if (value != "start") refuse("'clock=" + value + "': expected start (frames from the start) or wall (numbered by the wall clock)");
        } else if (key == "seed") {
            o.seed = static_cast<unsigned>(number(key, value, 0, 1000000));
        } else {
            refuse("unknown parameter '" + key + "'");
        }
    }
    return o;
}

int64_t number_in_strip(const uint8_t* luma, int stride, int width, int height) {
    const int block = width / kPatternStripBits, y = pattern_strip_height(height) / 2;
    int64_t n = 0;
    for (int i = 0; i < kPatternStripBits; ++i)
        if (luma[static_cast<size_t>(y) * stride + i * block + block / 2] > 128) n |= int64_t{1} << i;
    return n;
}

}  // namespace vf
