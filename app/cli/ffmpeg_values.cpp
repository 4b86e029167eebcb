#include "app/cli/ffmpeg_values.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/error.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/parseutils.h>
}

namespace vf {
namespace {

[[noreturn]] void refuse_value(const std::string& option, const std::string& value, const std::string& why) {
    fail(ErrorCategory::Usage, option + " " + value + ": " + why);
}

std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s);
    return text;
}

}  // namespace

double ffmpeg_time(const std::string& option, const std::string& value) {
    int64_t us = 0;
    if (av_parse_time(&us, value.c_str(), 1) < 0) refuse_value(option, value, "not a time ([HH:]MM:SS[.m...] or seconds, e.g. 90 or 1:30.5)");
    if (us < 0) refuse_value(option, value, "a time from the start cannot be negative");
    return us / static_cast<double>(AV_TIME_BASE);
}

FrameSize ffmpeg_size(const std::string& option, const std::string& value) {
    FrameSize s;
    if (av_parse_video_size(&s.width, &s.height, value.c_str()) < 0)
        refuse_value(option, value, "not a size (WxH, e.g. 1280x720, or a name such as hd720)");
    return s;
}

AVRational ffmpeg_rate(const std::string& option, const std::string& value) {
    AVRational r{0, 1};
    if (av_parse_video_rate(&r, value.c_str()) < 0 || r.num <= 0 || r.den <= 0)
        refuse_value(option, value, "not a frame rate (e.g. 25, 30000/1001 or ntsc)");
    return r;
}

// Each word between '+' and '-' one of libswscale's flags (or a number), as AVOption's flags are
// written; checked by name only, since evaluating them logs through the context they are for.
void check_sws_flags(const std::string& option, const std::string& value) {
    const AVClass* sws_class = sws_get_class();
    size_t start = value.find_first_not_of("+-");
    if (start == std::string::npos) refuse_value(option, value, "no flag given (e.g. bicubic, lanczos+accurate_rnd)");
    while (start < value.size()) {
        const size_t end = std::min(value.find_first_of("+-", start), value.size());
        const std::string word = value.substr(start, end - start);
        char* number_end = nullptr;
        (void)std::strtoll(word.c_str(), &number_end, 0);
        const bool number = *number_end == '\0';
        if (!number && !av_opt_find(&sws_class, word.c_str(), "sws_flags", 0, AV_OPT_SEARCH_FAKE_OBJ))
            refuse_value(option, value, "'" + word + "' is not a libswscale flag (e.g. bicubic, lanczos+accurate_rnd)");
        start = end < value.size() ? value.find_first_not_of("+-", end) : value.size();
        if (start == std::string::npos) break;
    }
}

TimeWindow ffmpeg_time_window(const FfmpegTimes& times) {
    std::optional<double> duration[2];
    for (int side = 0; side < 2; ++side) {
        duration[side] = times.duration[side];
        if (!duration[side] && times.end[side]) {
            const double from = times.start[side].value_or(0);
            if (*times.end[side] <= from)
                refuse_value("-to", seconds_text(*times.end[side]), "not after -ss " + seconds_text(from) + " (ffmpeg aborts too)");
            duration[side] = *times.end[side] - from;
        }
    }
    TimeWindow w;
    w.input_start = times.start[0];
    w.input_duration = duration[0];
    w.output_start = times.start[1];
    w.output_duration = duration[1];
    return w;
}

}  // namespace vf
