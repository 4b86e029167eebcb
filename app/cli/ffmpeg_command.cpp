#include "app/cli/ffmpeg_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "app/cli/ffmpeg_values.hpp"
#include "app/run/stream_options.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "encode/video_encoder.hpp"
#include "media/av_helpers.hpp"


namespace vf {
namespace {

// A line this command cannot run as ffmpeg would: the one-line reason, naming the option.
struct Refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the words of the line asked for, as vfilter's fields ("codec", "frames", ...) with the
// ffmpeg option that gave each (for a refusal of its value), and what is settled at the end.
struct FfmpegLine {
    StreamFields fields;
    std::map<std::string, std::string> given_by;
    bool input_seen = false;  // ffmpeg's grammar: options before -i are the input's
    std::vector<std::string> outputs;
    std::string format, pix_fmt;
    int verbosity = 0;
    bool progress = true;
    bool help = false;
    // What the run takes beyond the stream option table (ffmpeg's alone: vfilter has no option
    // for these), set on its RunOptions once the table's fields are read.
    std::vector<std::string> maps_video;  // -map of the video: 0:v or the chain's [label]
    bool maps_audio = false;
    FfmpegTimes times;      // -ss, -t, -to
    FrameSize size;         // -s after -i
    AVRational rate{0, 1};  // -r after -i
    std::string sws_flags;  // -sws_flags

    void set(const std::string& field, const std::string& value, const std::string& option) {
        fields[field] = value;
        given_by[field] = option;
    }
};

using Handler = void (*)(FfmpegLine&, const std::string& option, const std::string& value);

struct FfmpegOption {
    std::vector<const char*> names;
    bool takes_value;
    Handler apply;
};

void accept(FfmpegLine&, const std::string&, const std::string&) {}

[[noreturn]] void not_yet(const std::string& option, const char* what) {
    throw Refusal(option + " (" + what + ") is not supported yet");
}

void set_filter(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (l.fields.count("filter")) throw Refusal(option + ": one filter chain only (vfilter filters one stream)");
    l.set("filter", v, option);
}

// -map: the input's video (0, 0:v, 0:v:0) or the chain's output label ([out]); what it selects is
// the output's only video. Mapping only video leaves audio out, as in ffmpeg.
void set_map(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (v == "0" || v == "0:a?" || v == "0:a") {
        l.maps_audio = true;
        if (v == "0") l.maps_video.push_back(v);
        return;
    }
    if (v == "0:v" || v == "0:v:0" || v == "0:V" || (v.size() > 2 && v.front() == '[' && v.back() == ']'))
        return l.maps_video.push_back(v);
    throw Refusal(option + " " + v + ": vfilter maps the input's video (-map 0:v), the filter chain's output label "
                  "(-map '[out]') and its audio (-map 0:a)");
}

void set_input(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (l.input_seen) throw Refusal(option + ": one input only (vfilter filters one stream)");
    l.set("input", v, option);
    l.input_seen = true;
}

void set_format(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (!l.input_seen && v != "v4l2")
        throw Refusal(option + " " + v + " before -i (the input's format) is not supported: vfilter finds the input's format itself");
    if (l.input_seen) l.format = v;
}

void set_video_codec(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (!l.input_seen) {  // the input's decoder (FATE's -c:v pgmyuv: .pgm files that hold YUV)
        l.set("decoder", v, option);
        return;
    }
    if (v == "copy") throw Refusal(option + " copy: filtered frames are encoded; name an encoder (libx264, ffv1, rawvideo, ...)");
    try {
        (void)find_video_encoder(v);
    } catch (const Error& e) {
        throw Refusal(option + ": " + e.what());
    }
    l.set("codec", v, option);
}

// -ss, -t, -to: the input's before -i, the output's after it.
void set_time(FfmpegLine& l, const std::string& option, const std::string& v) {
    const int side = l.input_seen ? 1 : 0;
    const double s = ffmpeg_time(option, v);
    if (option == "-ss") l.times.start[side] = s;
    else if (option == "-t") l.times.duration[side] = s;
    else l.times.end[side] = s;
}

// -s: the output's size after -i (scaled after the filters); before -i, a raw input's size.
void set_size(FfmpegLine& l, const std::string& option, const std::string& v) {
    const FrameSize size = ffmpeg_size(option, v);
    if (!l.input_seen) return l.set("input-size", std::to_string(size.width) + "x" + std::to_string(size.height), option);
    l.size = size;
}

// -r: the output's frame rate after -i; before -i ffmpeg would read the input's timestamps anew.
void set_rate(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (!l.input_seen)
        throw Refusal(option + " " + v + " before -i (the input's rate, its timestamps replaced) is not supported; -r after -i "
                               "sets the output's, and -framerate a capture device's");
    l.rate = ffmpeg_rate(option, v);
}

void set_sws_flags(FfmpegLine& l, const std::string& option, const std::string& v) {
    check_sws_flags(option, v);
    l.sws_flags = v;
}

void set_audio_codec(FfmpegLine&, const std::string& option, const std::string& v) {
    if (v != "copy") throw Refusal(option + " " + v + ": vfilter copies audio as is (" + option + " copy) or leaves it out (-an)");
}

void set_threads(FfmpegLine& l, const std::string& option, const std::string& v) {
    // ffmpeg's -threads is the decoder's before -i and the encoder's after it.
    l.set(l.input_seen ? "encoder-threads" : "decoder-threads", v == "auto" ? "0" : v, option);
}

// ffmpeg's -bitexact and +bitexact flags: no library versions in the output (framecrc's
// #software line, a container's encoder tag), as ffmpeg writes it; before -i they are the
// decoder's and the demuxer's, which vfilter's are already.
void set_flags(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (v != "+bitexact" && v != "bitexact")
        throw Refusal(option + " " + v + ": only +bitexact is taken (vfilter's output is the same bytes on every run)");
    if (l.input_seen) l.set("bitexact", "true", option);
}

void set_bitexact(FfmpegLine& l, const std::string& option, const std::string&) { set_flags(l, option, "+bitexact"); }

void set_hwaccel(FfmpegLine& l, const std::string& option, const std::string& v) {
    if (v == "cuda" || v == "nvdec") l.set("hwdec", "cuda", option);
    else if (v == "none" || v == "auto") l.set("hwdec", v, option);
    else throw Refusal(option + " " + v + ": vfilter decodes with cuda (NVDEC), auto or none");
}

void set_hwaccel_output(FfmpegLine&, const std::string& option, const std::string& v) {
    if (v != "cuda") throw Refusal(option + " " + v + ": only cuda is taken");
}

// ffmpeg's log levels by name or number ("repeat+level+" prefixes allowed) as vfilter's verbosity.
void set_loglevel(FfmpegLine& l, const std::string& option, const std::string& given) {
    std::string v = given;
    for (const char* prefix : {"repeat+", "level+", "+repeat+", "+level+"})
        if (v.rfind(prefix, 0) == 0) v.erase(0, std::string(prefix).size());
    static const std::map<std::string, int> kLevels = {{"quiet", -8}, {"panic", 0},    {"fatal", 8},    {"error", 16},
                                                       {"warning", 24}, {"info", 32},  {"verbose", 40}, {"debug", 48},
                                                       {"trace", 56}};
    int level = 0;
    if (const auto named = kLevels.find(v); named != kLevels.end()) {
        level = named->second;
    } else {
        char* end = nullptr;
        level = static_cast<int>(std::strtol(v.c_str(), &end, 10));
        if (v.empty() || *end) throw Refusal(option + " " + given + ": expected quiet, panic, fatal, error, warning, info, verbose, debug or trace");
    }
    l.verbosity = level <= 16 ? -1 : level <= 32 ? 0 : level <= 40 ? 1 : 2;
}

#define FIELD(name) [](FfmpegLine& l, const std::string& option, const std::string& v) { l.set(name, v, option); }
#define SWITCH(name, value) [](FfmpegLine& l, const std::string& option, const std::string&) { l.set(name, value, option); }
#define REFUSE(what) [](FfmpegLine&, const std::string& option, const std::string&) { not_yet(option, what); }

const std::vector<FfmpegOption>& ffmpeg_options() {
    static const std::vector<FfmpegOption> table = {
        {{"-i"}, true, set_input},
        {{"-vf", "-filter:v", "-lavfi", "-filter_complex"}, true, set_filter},
        {{"-f"}, true, set_format},
        {{"-c:v", "-vcodec", "-codec:v"}, true, set_video_codec},
        {{"-c:a", "-acodec", "-codec:a"}, true, set_audio_codec},
        {{"-an"}, false, SWITCH("no-audio", "true")},
        {{"-map"}, true, set_map},
        {{"-b:v"}, true, FIELD("bitrate")},
        {{"-crf"}, true, FIELD("crf")},
        {{"-preset"}, true, FIELD("preset")},
        {{"-frames:v", "-vframes"}, true, FIELD("frames")},
        {{"-threads"}, true, set_threads},
        {{"-filter_threads"}, true, FIELD("threads")},
        {{"-y"}, false, SWITCH("overwrite", "true")},
        {{"-n"}, false, SWITCH("overwrite", "false")},
        {{"-re"}, false, SWITCH("realtime", "true")},
        {{"-rtsp_transport"}, true, FIELD("rtsp-transport")},
        {{"-video_size"}, true, FIELD("input-size")},
        {{"-framerate"}, true, FIELD("input-fps")},
        {{"-input_format"}, true, FIELD("input-format")},
        {{"-hwaccel"}, true, set_hwaccel},
        {{"-hwaccel_output_format"}, true, set_hwaccel_output},
        {{"-flags", "-fflags"}, true, set_flags},
        {{"-loglevel", "-v"}, true, set_loglevel},
        {{"-pix_fmt"}, true, [](FfmpegLine& l, const std::string&, const std::string& v) { l.pix_fmt = v; }},
        {{"-nostats"}, false, [](FfmpegLine& l, const std::string&, const std::string&) { l.progress = false; }},
        {{"-stats"}, false, [](FfmpegLine& l, const std::string&, const std::string&) { l.progress = true; }},
        {{"-h", "-help", "--help", "-?"}, false, [](FfmpegLine& l, const std::string&, const std::string&) { l.help = true; }},
        // Taken and meaning nothing here: vfilter prints no banner, reads no keys, converts no
        // pixel formats, and its output is the same bytes on every run.
        {{"-bitexact"}, false, set_bitexact},
        {{"-hide_banner", "-nostdin", "-noauto_conversion_filters"}, false, accept},
        {{"-cpuflags", "-thread_type"}, true, accept},
        {{"-ss", "-t", "-to"}, true, set_time},
        {{"-s"}, true, set_size},
        {{"-r"}, true, set_rate},
        {{"-sws_flags"}, true, set_sws_flags},
        {{"-sseof"}, true, REFUSE("seeking from the end; use -ss")},
    };
    return table;
}

#undef FIELD
#undef SWITCH
#undef REFUSE

const FfmpegOption* find_option(const std::string& word) {
    for (const FfmpegOption& opt : ffmpeg_options())
        for (const char* name : opt.names)
            if (word == name) return &opt;
    return nullptr;
}

FfmpegLine read_words(const std::vector<std::string>& args) {
    FfmpegLine line;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& w = args[i];
        if (w.size() < 2 || w[0] != '-') {
            line.outputs.push_back(w);
            continue;
        }
        const FfmpegOption* opt = find_option(w);
        if (!opt) throw Refusal(w + " is not supported (vfilter ffmpeg --help lists the options it takes)");
        std::string value;
        if (opt->takes_value) {
            if (i + 1 >= args.size()) throw Refusal(w + " needs a value");
            value = args[++i];
        }
        opt->apply(line, w, value);
    }
    return line;
}

// What the input is, read before the run: its video's pixel format as `decoder` (empty: its own)
// gives it ("" where it cannot be read: a stream, a pipe, a missing file, which the run itself
// reports).
struct InputProbe {
    std::string pix_fmt;
};

InputProbe probe_input(const std::string& url, const std::string& decoder) {
    InputProbe probe;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(url, ec)) return probe;
    AVFormatContext* ctx = nullptr;
    AVDictionary* options = nullptr;
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    ctx = avformat_alloc_context();
    if (const AVCodec* forced = decoder.empty() ? nullptr : avcodec_find_decoder_by_name(decoder.c_str()); ctx && forced) {
        ctx->video_codec_id = forced->id;
        ctx->video_codec = forced;
    }
    const int opened = avformat_open_input(&ctx, url.c_str(), nullptr, &options);
    av_dict_free(&options);
    if (opened < 0) return probe;
    if (avformat_find_stream_info(ctx, nullptr) >= 0) {
        const int s = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
        if (s >= 0) {
            const AVCodecParameters* par = ctx->streams[s]->codecpar;
            if (const char* n = av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format))) probe.pix_fmt = n;
        }
    }
    avformat_close_input(&ctx);
    return probe;
}

// -pix_fmt is taken when it names what vfilter writes: the input's own format (RGB included: it is
// filtered as RGB and written as it came).
void check_pixel_format(const std::string& pix_fmt, const InputProbe& input) {
    const AVPixelFormat asked = av_get_pix_fmt(pix_fmt.c_str());
    if (asked == AV_PIX_FMT_NONE) throw Refusal("-pix_fmt " + pix_fmt + ": not a pixel format (ffmpeg -pix_fmts lists them)");
    if (input.pix_fmt.empty() || av_get_pix_fmt(input.pix_fmt.c_str()) != asked)
        throw Refusal("-pix_fmt " + pix_fmt + ": vfilter writes the input's pixel format" +
                      (input.pix_fmt.empty() ? "" : " (" + input.pix_fmt + ")") + " and converts none yet; leave -pix_fmt out");
}

// ffmpeg's default encoder for a container that stores raw frames (framecrc, framemd5, rawvideo,
// ...) is rawvideo; for the others vfilter's own default (auto: libx264, or NVENC) stands.
bool container_wants_raw_frames(const std::string& format, const std::string& path) {
    const AVOutputFormat* f = av_guess_format(format.empty() ? nullptr : format.c_str(), path.c_str(), nullptr);
    return f && f->video_codec == AV_CODEC_ID_RAWVIDEO;
}

// The output and its container, ffmpeg's way: the last word, "-" for stdout, -f null to discard.
void settle_output(FfmpegLine& line) {
    if (!line.input_seen) throw Refusal("-i: no input given (vfilter ffmpeg -i INPUT [options] OUTPUT)");
    if (line.outputs.empty()) throw Refusal("no output given: name it last (- for stdout, -f null - to discard)");
    if (line.outputs.size() > 1)
        throw Refusal("one output only: '" + line.outputs.front() + "' and '" + line.outputs.back() + "' given");
    const std::string& path = line.outputs.front();
    if (line.format == "null") {
        line.set("output", "null", "-f");
        return;
    }
    line.set("output", path, "the output");
    if (!line.format.empty()) line.set("out-format", line.format, "-f");
    if (!line.fields.count("codec") && container_wants_raw_frames(line.format, path)) line.set("codec", "rawvideo", "-f");
}

// Each field alone first, so that a value refused is named by the ffmpeg option that gave it.
RunOptions typed_options(const FfmpegLine& line) {
    for (const auto& [field, value] : line.fields) {
        try {
            (void)stream_options_from_fields({{field, value}});
        } catch (const Error& e) {
            std::string why = e.what();
            const std::string prefix = "field '" + field + "': ";
            if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
            throw Refusal(line.given_by.at(field) + ": " + why);
        }
    }
    return stream_options_from_fields(line.fields);
}

// -map, checked against the chain: a label must be the chain's output label; one video only.
void check_maps(const FfmpegLine& line, const RunOptions& run) {
    if (line.maps_video.empty() && !line.maps_audio) return;
    if (line.maps_video.size() != 1)
        throw Refusal("-map: map the video once (-map 0:v or -map '[out]'): vfilter writes one video stream");
    const std::string& v = line.maps_video.front();
    const std::string& label = run.filter.chain.spec().output_label();
    if (v.front() == '[' && v != "[" + label + "]")
        throw Refusal("-map " + v + ": " + (label.empty() ? std::string("the filter chain has no output label") :
                                                               "the filter chain's output is [" + label + "]"));
    const std::string by = line.given_by.count("filter") ? line.given_by.at("filter") : "";
    const bool complex = by == "-filter_complex" || by == "-lavfi";
    if (v.front() != '[' && !label.empty() && complex)
        throw Refusal("-map " + v + ": the filter chain's output [" + label + "] is what is written; map it (-map '[" + label + "]')");
}

// -map, -ss/-t/-to, -s, -sws_flags and -r: RunOptions that no stream option sets.
void set_beyond_the_table(const FfmpegLine& line, RunOptions& run) {
    check_maps(line, run);
    if (!line.maps_video.empty() && !line.maps_audio) run.output.no_audio = true;  // ffmpeg writes only what is mapped
    run.input.window = ffmpeg_time_window(line.times);
    run.output.scale_width = line.size.width;
    run.output.scale_height = line.size.height;
    if (!line.sws_flags.empty()) run.output.scale_flags = line.sws_flags;
    run.output.rate_num = line.rate.num;
    run.output.rate_den = line.rate.den;
}

// -pix_fmt, checked against what the input is (decoded by -c:v's decoder where one is given
// before -i). A local file that is missing is left to the run, which says so (exit 3).
void check_against_input(FfmpegLine& line) {
    const std::string& url = line.fields["input"].text;
    std::error_code ec;
    if (url != "-" && url.find("://") == std::string::npos && !std::filesystem::exists(url, ec)) return;
    const auto decoder = line.fields.find("decoder");
    const InputProbe input = probe_input(url, decoder == line.fields.end() ? "" : decoder->second.text);
    check_pixel_format(line.pix_fmt, input);
}

const char* const kHelp =
    "vfilter ffmpeg ARGS...: an ffmpeg command line, unchanged, run by vfilter (also when vfilter is started\n"
    "under the name ffmpeg). Filter strings get FFmpeg's defaults (--compat ffmpeg). Options before -i are\n"
    "the input's, after it the output's; the output comes last (- for stdout, -f null - to discard).\n"
    "Taken: -i, -vf/-filter:v/-lavfi/-filter_complex (one linear chain), -f FORMAT, -c:v/-vcodec ENCODER\n"
    "(before -i: the input's decoder, e.g. pgmyuv), -c:a copy, -an, -b:v, -crf, -preset, -frames:v/-vframes,\n"
    "-threads (the decoder's before -i, the encoder's after), -filter_threads, -y, -n, -hide_banner,\n"
    "-nostdin, -nostats, -stats, -loglevel/-v, -bitexact, -flags/-fflags +bitexact, -hwaccel cuda|auto|none,\n"
    "-pix_fmt (the input's own), -re, -rtsp_transport, -video_size, -framerate, -input_format,\n"
    "-ss/-t/-to (before -i: a seek, then the frames before it dropped; after -i: decoded and dropped),\n"
    "-s WxH (scaled after the filters, bicubic or -sws_flags), -r RATE (after -i: frames dropped or repeated\n"
    "as ffmpeg's video sync does for the container), -map 0:v / -map '[label]' of the chain's output;\n"
    "-cpuflags and -thread_type are taken and ignored. -f framecrc/framemd5/rawvideo get the rawvideo\n"
    "encoder, as with ffmpeg. Refused, naming the option: -sseof, -r before -i and any other option.\n"
    "Example: vfilter ffmpeg -y -i in.mp4 -vf sobel -c:v libx264 -crf 20 out.mp4\n";

Command exit_with(int code) {
    Command cmd;
    cmd.kind = Command::Exit;
    cmd.exit_code = code;
    return cmd;
}

}  // namespace

std::optional<std::vector<std::string>> ffmpeg_command_args(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "ffmpeg") return std::vector<std::string>(argv + 2, argv + argc);
    if (argc >= 1 && argv[0] && std::filesystem::path(argv[0]).filename() == "ffmpeg")
        return std::vector<std::string>(argv + 1, argv + argc);
    return std::nullopt;
}

Command parse_ffmpeg_command(const std::vector<std::string>& args) {
    try {
        FfmpegLine line = read_words(args);
        if (line.help || args.empty()) {
            std::fputs(kHelp, stdout);
            return exit_with(line.help ? 0 : 2);
        }
        settle_output(line);
        line.set("compat", "ffmpeg", "--compat");
        line.set("time-base", "frame-rate", "ffmpeg's time base");
        if (!line.pix_fmt.empty()) check_against_input(line);
        Command cmd;
        cmd.run = typed_options(line);
        set_beyond_the_table(line, cmd.run);
        cmd.process.verbosity = line.verbosity;
        cmd.process.progress = line.progress && line.verbosity >= 0;
        return cmd;
    } catch (const std::exception& e) {  // a Refusal, or a value refused by vfilter's own option table
        std::fprintf(stderr, "vfilter ffmpeg: error: %s\n", redact_credentials(e.what()).c_str());
        return exit_with(2);
    }
}

}  // namespace vf
