// Built-in pictures as an input anyone can name, on the command line and in serve's entries:
// pattern://?size=1280x720&rate=30&motion=ball&seed=1. A pattern input is live (paced at its rate)
// and endless (--frames, or a stream's `frames`, ends it), so a serve config of pattern streams
// shows moving pictures with no camera or file at hand.
#pragma once

#include <cstdint>
#include <string>

namespace vf {

enum class PatternMotion { Ball, Bars, Checker };

struct PatternOptions {
    int width = 1280, height = 720;
    int rate = 30;                         // frames a second
    PatternMotion motion = PatternMotion::Ball;
    unsigned seed = 0;                     // offsets the motion and the noise: streams of one motion differ
    // clock=wall: frames numbered by the wall clock (frame N is taken (N+0.5)/rate s past the epoch, its
    // number's low 20 bits drawn as a strip of blocks along the top, white for 1), so that
    // processes reading "one camera" get the same frame at the same moment: a camera handed
    // between shards can be checked for frames lost or doubled (number_in_strip reads it back).
    bool wall_clock = false;
};

// Whether `input` names a built-in pattern (starts with pattern://).
bool is_pattern_url(const std::string& input);
// The pattern `url` names; throws Error(Usage) with one line naming the parameter and what it takes.
PatternOptions parse_pattern_url(const std::string& url);
const char* pattern_motion_name(PatternMotion m);

// clock=wall's strip: 20 blocks across the top, block i white when bit i of the frame's number is set.
constexpr int kPatternStripBits = 20;
inline int pattern_strip_height(int height) { return height / 10 < 8 ? 8 : height / 10; }
// The number a clock=wall frame's luma shows (8-bit samples, `stride` apart row to row).
int64_t number_in_strip(const uint8_t* luma, int stride, int width, int height);

}  // namespace vf
