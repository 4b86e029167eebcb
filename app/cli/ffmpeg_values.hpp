// Values of ffmpeg's options as ffmpeg reads them (libavutil's parsers), for `vfilter ffmpeg`:
// times, sizes, frame rates, libswscale's flags, and -ss/-t/-to as the run's time window. Each
// throws Error(Usage) in one line naming the option and the value.
#pragma once

#include <optional>
#include <string>

#include "config/options.hpp"
#include "media/av_helpers.hpp"

namespace vf {

// [HH:]MM:SS[.m...] or S+[.m...][s|ms|us], in seconds; negative ones are refused.
double ffmpeg_time(const std::string& option, const std::string& value);

struct FrameSize {
    int width = 0, height = 0;
};
// WxH or a name such as hd720.
FrameSize ffmpeg_size(const std::string& option, const std::string& value);

// 25, 30000/1001, ntsc, ...
AVRational ffmpeg_rate(const std::string& option, const std::string& value);

// Flags libswscale takes (bicubic, lanczos+accurate_rnd, ...), as ffmpeg's scale filter reads them.
void check_sws_flags(const std::string& option, const std::string& value);

// -ss, -t and -to as given: [0] before -i (the input's), [1] after it (the output's).
struct FfmpegTimes {
    std::optional<double> start[2], duration[2], end[2];
};
// The run's time window: -t wins over -to, and -to counts from the -ss of the same side
// (fftools/ffmpeg_opt.c: recording_time = stop_time - start_time); a -to not after it is refused.
TimeWindow ffmpeg_time_window(const FfmpegTimes& times);

}  // namespace vf
