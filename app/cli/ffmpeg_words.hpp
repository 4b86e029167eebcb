// ffmpeg's options given to vfilter's own command line. CLI11 reads "-frames:v" as "-f rames:v"
// (vfilter's -f is the filter, ffmpeg's the format), so these are caught before it parses: each
// gets a one-line error naming vfilter's option for it, never a misread.
#pragma once

#include <string>

namespace vf {

// The error for `word` when it is an option spelled as ffmpeg spells options (one dash, more than
// one letter: -c:v, -pix_fmt, -frames:v, -flags), naming vfilter's own where it has one; "" for
// any other word. -vf and -filter:v are vfilter's too and get "". ffmpeg's -ss, -t, -to, -r and
// -s (taken only by vfilter ffmpeg) point there.
std::string ffmpeg_option_error(const std::string& word);

}  // namespace vf
