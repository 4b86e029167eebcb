#include "media/protocols.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "common/ascii.hpp"
#include "common/error.hpp"

namespace vf {

const char* const kDefaultNetworkProtocols = "rtsp,rtsps,rtp,udp,tcp,rtmp,rtmps,srt,http,https,tls";

std::string input_protocol(const std::string& url) {
    if (url == "-" || url.rfind("pipe:", 0) == 0) return "pipe";
    const size_t colon = url.find(':');
    // "C:\x" style paths and names without a scheme are files; a scheme is letters, digits, + - .
    if (colon == std::string::npos || colon < 2) return "file";
    const std::string scheme = url.substr(0, colon);
    if (!std::all_of(scheme.begin(), scheme.end(), [](unsigned char c) { return std::isalnum(c) || c == '+' || c == '-' || c == '.'; }))
        return "file";
    return ascii_lower(scheme);
}

std::string protocol_whitelist(const std::string& url, const std::string& allowed) {
    const std::string proto = input_protocol(url);
    std::string list = allowed;
    if (list.empty()) list = (proto == "file" || proto == "pipe") ? "file,pipe" : kDefaultNetworkProtocols;
    std::stringstream ss(list);
    for (std::string p; std::getline(ss, p, ',');)
        if (p == proto) return list;
    fail_lasting(ErrorCategory::Input, "input '" + url + "': protocol '" + proto + "' is not allowed (allowed: " + list +
                                           "; change with --allow-protocols)");
}

}  // namespace vf
