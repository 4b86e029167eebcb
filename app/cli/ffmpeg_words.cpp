#include "app/cli/ffmpeg_words.hpp"

#include <cctype>

namespace vf {
namespace {

struct Spelling {
    const char* ffmpeg;
    const char* vfilter;  // what to write instead
};

const Spelling kSpellings[] = {
    {"-c:v", "--codec"},
    {"-vcodec", "--codec"},
    {"-codec:v", "--codec"},
    {"-crf", "--crf"},
    {"-preset", "--preset"},
    {"-b:v", "--bitrate"},
    {"-an", "--no-audio"},
    {"-threads", "--threads (filter threads), --decoder-threads or --encoder-threads"},
    {"-frames:v", "--frames"},
    {"-vframes", "--frames"},
    {"-re", "--realtime"},
    {"-lavfi", "-f/--filter (with --compat ffmpeg, FFmpeg's defaults)"},
    {"-filter_complex", "-f/--filter (with --compat ffmpeg, FFmpeg's defaults)"},
    {"-hwaccel", "--hwdec cuda"},
    {"-rtsp_transport", "--rtsp-transport"},
    {"-loglevel", "-q (errors only), -v or --debug"},
    {"-pix_fmt", "nothing: vfilter writes the input's pixel format; leave it out"},
    {"-hide_banner", "nothing: vfilter prints no banner; leave it out"},
    {"-nostdin", "nothing: vfilter reads no keys from its standard input; leave it out"},
};

// One dash, a letter, then at least one more letter, digit, '_' or ':': an option as ffmpeg
// spells them. Values do not look like this (numbers, paths with a dot or a slash, filter strings).
bool spelled_like_ffmpeg(const std::string& w) {
    if (w.size() < 3 || w[0] != '-' || !std::isalpha(static_cast<unsigned char>(w[1]))) return false;
    for (size_t i = 2; i < w.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(w[i]);
        if (!std::isalnum(c) && c != '_' && c != ':') return false;
    }
    return true;
}

// ffmpeg's options that vfilter takes in an ffmpeg line only (vfilter ffmpeg), with what each is.
struct LineOnly {
    const char* ffmpeg;
    const char* what;
};
const LineOnly kFfmpegLineOnly[] = {
    {"-ss", "a start time"}, {"-t", "a duration"}, {"-to", "an end time"}, {"-r", "an output frame rate"}, {"-s", "an output size"},
};

}  // namespace

std::string ffmpeg_option_error(const std::string& word) {
    for (const LineOnly& s : kFfmpegLineOnly)
        if (word == s.ffmpeg)
            return "'" + word + "' is ffmpeg's option (" + s.what + "); vfilter takes it in an ffmpeg line: vfilter ffmpeg -i IN " +
                   word + " VALUE ... OUT";
    if (word == "-vf" || !spelled_like_ffmpeg(word)) return "";
    for (const Spelling& s : kSpellings)
        if (word == s.ffmpeg)
            return "'" + word + "' is ffmpeg's option; vfilter's is " + s.vfilter +
                   " (vfilter's one-dash options are single letters: -f is --filter, not the format), or run the "
                   "line as is: vfilter ffmpeg ...";
    return "'" + word + "' is not a vfilter option: its one-dash options are single letters (-i, -f for --filter, -o, -y, "
           "-v, -q), the others take two dashes (vfilter --help); or run an ffmpeg line as is: vfilter ffmpeg ...";
}

}  // namespace vf
