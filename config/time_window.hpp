// The part of an input a run filters and writes (vfilter ffmpeg's -ss, -t and -to), typed once
// where the command line is read; pipeline/time_cut.hpp applies it.
#pragma once

#include <optional>

namespace vf {

// ffmpeg's -ss, -t and -to (vfilter ffmpeg), in seconds: the part of the input that is filtered
// and written. Input ones (before -i) count from the input's start, output ones from where the
// input ones start; durations from the first frame kept. Unset: no limit.
struct TimeWindow {
    std::optional<double> input_start;      // -ss before -i: the demuxer seeks there; earlier frames are dropped
    std::optional<double> input_duration;   // -t before -i (or -to minus -ss)
    std::optional<double> output_start;     // -ss after -i: frames before it are decoded and dropped
    std::optional<double> output_duration;  // -t after -i (or -to minus -ss)
    bool limits() const { return input_start || input_duration || output_start || output_duration; }
};

}  // namespace vf
