// Which protocols an input may use. FFmpeg opens nested resources on its own (playlist entries,
// concat lists, references inside containers) with the protocols the outer input allows, so a
// crafted playlist could read local files or reach other hosts. vfilter passes FFmpeg a whitelist:
// by default the input's own class only, local (file, pipe) or network (rtsp, rtp, udp, tcp,
// rtmp, srt, http, https and the tls they need), never both. --allow-protocols sets it exactly.
#pragma once

#include <string>

namespace vf {

// The network protocols allowed by default for network inputs.
extern const char* const kDefaultNetworkProtocols;

// "file" for plain paths, "pipe" for "-" and pipe:, otherwise the URL's scheme in lower case.
std::string input_protocol(const std::string& url);

// The whitelist to hand FFmpeg for `url`: `allowed` when the user set one (--allow-protocols),
// otherwise the default for the input's class. Throws Error(Input) when the input's own
// protocol is not allowed.
std::string protocol_whitelist(const std::string& url, const std::string& allowed);

}  // namespace vf
