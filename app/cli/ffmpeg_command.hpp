// `vfilter ffmpeg ARGS...` (or vfilter started under the name ffmpeg): an ffmpeg command line,
// unchanged, read in ffmpeg's own grammar (options before -i are the input's, after it the
// output's, the output last) into the same typed options the normal command line fills, for the
// same single run. Filter strings always get FFmpeg's defaults (--compat ffmpeg). What vfilter
// cannot do (seeking, scaling, graphs with several chains, another pixel format) is refused in
// one line naming the option, exit 2, before anything is opened or written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"

namespace vf {

// The ffmpeg arguments when this command line is one (argv[1] is "ffmpeg", or argv[0]'s file name
// is ffmpeg); nothing otherwise.
std::optional<std::vector<std::string>> ffmpeg_command_args(int argc, char** argv);

// The run an ffmpeg command line asks for, or Exit with 2 (a refusal, printed on stderr) or 0 (help).
Command parse_ffmpeg_command(const std::vector<std::string>& args);

}  // namespace vf
