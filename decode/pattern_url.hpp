// Built-in pictures as an input anyone can name, on the command line and in serve's entries:
// pattern://?size=1280x720&rate=30&motion=ball&seed=1. A pattern input is live (paced at its rate)
// and endless (--frames, or a stream's `frames`, ends it), so a serve config of pattern streams
// shows moving pictures with no camera or file at hand.
#pragma once

#include <string>

namespace vf {

enum class PatternMotion { Ball, Bars, Checker };

struct PatternOptions {
    int width = 1280, height = 720;
    int rate = 30;                         // frames a second
    PatternMotion motion = PatternMotion::Ball;
    unsigned seed = 0;                     // offsets the motion and the noise: streams of one motion differ
};

// Whether `input` names a built-in pattern (starts with pattern://).
bool is_pattern_url(const std::string& input);
// The pattern `url` names; throws Error(Usage) with one line naming the parameter and what it takes.
PatternOptions parse_pattern_url(const std::string& url);
const char* pattern_motion_name(PatternMotion m);

}  // namespace vf
