// spdlog set-up: level from -v/-q, text or JSON lines on stderr (media/av_helpers.hpp routes
// FFmpeg's own logs in).
#pragma once

#include <string>

namespace vf {

enum class LogFormat { Text, Json };

// verbosity: -1 quiet (errors only), 0 normal, 1 verbose (debug), 2 trace.
void setup_logging(int verbosity, LogFormat format);

// The stream this thread works for (`vfilter serve`): every log line it writes starts with
// "[NAME] ". Threads a stream starts take it over (Pipeline does); "" for none.
void set_log_stream(const std::string& name);
const std::string& log_stream();

}  // namespace vf
