// spdlog set-up: level from -v/-q, text or JSON lines on stderr (media/av_helpers.hpp routes
// FFmpeg's own logs in).
#pragma once

#include <string>

namespace vf {

enum class LogFormat { Text, Json };

// verbosity: -1 quiet (errors only), 0 normal, 1 verbose (debug), 2 trace.
void setup_logging(int verbosity, LogFormat format);

}  // namespace vf
