// ASCII case folding for protocol words (host names, schemes, header values), independent of the
// process's locale.
#pragma once

#include <algorithm>
#include <string>

namespace vf {

inline std::string ascii_lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return s;
}

}  // namespace vf
