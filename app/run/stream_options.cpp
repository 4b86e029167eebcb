#include "app/run/stream_options.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <sstream>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

#include "app/run/clip_fields.hpp"
#include "app/run/process_options.hpp"
#include "app/run/watch_fields.hpp"
#include "common/error.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

const BooleanWords& yaml_boolean_words() {
    static const BooleanWords words{{"true", "yes", "on"}, {"false", "no", "off"}};
    return words;
}

const BooleanWords& switch_boolean_words() {
    static const BooleanWords words{{"true", "yes", "on", "1"}, {"false", "no", "off", "0"}};
    return words;
}

std::optional<bool> field_boolean(const FieldValue& v, const BooleanWords& words) {
    if (v.kind == FieldValue::Kind::Boolean) return v.boolean;
    if (v.kind != FieldValue::Kind::Text) return std::nullopt;
    for (const std::string_view t : words.yes)
        if (v.text == t) return true;
    for (const std::string_view f : words.no)
        if (v.text == f) return false;
    return std::nullopt;
}

std::optional<double> field_number(const FieldValue& v) {
    if (v.kind == FieldValue::Kind::Boolean) return std::nullopt;
    double x = v.number;
    if (v.kind == FieldValue::Kind::Text) {
        char* end = nullptr;
        x = std::strtod(v.text.c_str(), &end);
        if (v.text.empty() || *end) return std::nullopt;
    }
    if (!std::isfinite(x)) return std::nullopt;
    return x;
}

namespace {

// A value an option cannot take; the message says what is allowed.
struct BadValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The type a value was wanted as, for a refusal: "expected a number in 0..63, not true/false".
std::string given_as(const FieldValue& v) {
    return v.kind == FieldValue::Kind::Boolean ? "true/false" : v.kind == FieldValue::Kind::Number ? "a number" : "text";
}

long long whole_number(const FieldValue& v, long long lo, long long hi) {
    const std::string wanted = "expected a whole number in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (v.kind == FieldValue::Kind::Boolean) throw BadValue(wanted + ", not " + given_as(v));
    if (v.kind == FieldValue::Kind::Number) {
        if (v.number != std::floor(v.number) || v.number < static_cast<double>(lo) || v.number > static_cast<double>(hi))
            throw BadValue(wanted);
        return static_cast<long long>(v.number);
    }
    // Text: as the command line gives every value.
    errno = 0;
    char* end = nullptr;
    const long long n = std::strtoll(v.text.c_str(), &end, 10);
    if (v.text.empty() || *end || errno == ERANGE || n < lo || n > hi) throw BadValue(wanted);
    return n;
}

int whole(const FieldValue& v, int lo, int hi) { return static_cast<int>(whole_number(v, lo, hi)); }

double number(const FieldValue& v, double lo, double hi) {
    std::ostringstream wanted;
    wanted << "expected a number in " << lo << ".." << hi;
    if (v.kind == FieldValue::Kind::Boolean) throw BadValue(wanted.str() + ", not " + given_as(v));
    const std::optional<double> x = field_number(v);
    if (!x || *x < lo || *x > hi) throw BadValue(wanted.str());
    return *x;
}

bool boolean(const FieldValue& v) {
    if (const std::optional<bool> b = field_boolean(v, switch_boolean_words())) return *b;
    throw BadValue("expected true or false");
}

// A text field's value; a number or true/false given for it is refused.
const std::string& text(const FieldValue& v) {
    if (v.kind != FieldValue::Kind::Text) throw BadValue("expected text, not " + given_as(v));
    return v.text;
}

template <typename T>
T choice(const FieldValue& given, std::initializer_list<std::pair<const char*, T>> words) {
    const std::string& v = text(given);
    std::string names;
    for (const auto& [name, value] : words) {
        if (v == name) return value;
        names += std::string(names.empty() ? "" : ", ") + name;
    }
    throw BadValue("expected " + names);
}

// One per-stream option: its command-line names (the first long one is its field in serve's
// entries), help, the default shown in --help, the environment variable that gives its default,
// whether it is a switch, how a value is checked and stored, and who may set it.
struct StreamOption {
    const char* names;
    const char* help;
    const char* default_text;  // nullptr: none shown
    const char* env;           // nullptr: none
    bool flag;
    FieldType type;  // what a YAML scalar or a JSON value must be
    void (*set)(RunOptions&, const FieldValue&);
    FieldSetter who = FieldSetter::Admin;
};

const std::vector<StreamOption>& stream_option_table() {
    static const std::vector<StreamOption> table = {
        {"-i,--input",
         "file, URL (rtsp://, rtmp://, srt://, udp://, http://), capture device (/dev/video0) or - (stdin); omitted: a built-in "
         "1280x720@30 test pattern, 10 s",
         nullptr, nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.url = text(v); }},
        {"-f,--filter", "filter chain, e.g. \"gaussian=sigma=2,sobel\" (see --list-filters)", "identity", nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.filter.chain = compile_chain(text(v)); }},
        {"-o,--out,--output",
         "output file (container from its name), rtsp:// rtmp:// srt:// udp:// URL to publish to, - for stdout, or null to discard",
         nullptr, nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.path = text(v); }},
        {"--compat",
         "whose defaults filter strings get: vfilter (a bare sobel edges the luma and greys the chroma) or ffmpeg (the ffmpeg "
         "command's defaults: the same string gives its output)",
         "vfilter", "VFILTER_COMPAT", false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.filter.compat = choice<FilterDefaults>(v, {{"vfilter", FilterDefaults::Vfilter}, {"ffmpeg", FilterDefaults::Ffmpeg}});
         }},
        {"-y,--overwrite", "overwrite an existing output file", nullptr, nullptr, true,
         FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.output.overwrite = boolean(v); }, FieldSetter::Operator},
        {"--codec",
         "video encoder: auto (h264_nvenc on a GPU that has NVENC, else libx264), libx264, libx265, h264_nvenc, hevc_nvenc, "
         "mpeg4, ffv1, rawvideo, ...",
         "auto", nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.codec = text(v); }},
        {"--crf", "constant quality (x264/x265: 0-51, default 23; mpeg4: qscale 1-31, default 3)", nullptr, nullptr, false,
         FieldType::Number, [](RunOptions& o, const FieldValue& v) { o.output.crf = number(v, 0, 63); }},
        {"--preset", "x264/x265 preset (default veryfast; superfast with --low-latency)", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.preset = text(v); }},
        {"--bitrate", "target bitrate instead of constant quality, e.g. 4M", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.bitrate = text(v); }},
        {"--no-audio", "leave audio and subtitle streams out", nullptr, nullptr, true,
         FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.output.no_audio = boolean(v); }},
        {"--threads", "CPU filter threads (0 = one per core)", nullptr, nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.filter.threads = whole(v, 0, 1024); }},
        {"--device", "where filters run: auto (GPU when present), cpu, cuda", "auto", "VFILTER_DEVICE", false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.filter.device = choice<DeviceChoice>(v, {{"auto", DeviceChoice::Auto}, {"cpu", DeviceChoice::Cpu}, {"cuda", DeviceChoice::Cuda}});
         }},
        {"--kernel",
         "GPU kernel: auto, a family (naive, constant, tiled, separable, fft, tensor) or a variant's name (see --list-kernels)",
         "auto", nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             if (!parse_kernel_choice(text(v), &o.filter.kernel))
                 throw BadValue("expected " + kernel_choices() + " (see vfilter --list-kernels)");
         }},
        {"--hwdec", "decode on the GPU with NVDEC: auto (when filtering on the GPU and the codec allows), cuda, none", "auto", nullptr,
         false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.input.hwdec = choice<HwDecode>(v, {{"auto", HwDecode::Auto}, {"cuda", HwDecode::Cuda}, {"none", HwDecode::None}});
         }},
        {"--nvdec-decoder",
         "what drives NVDEC for H.264: ffmpeg (FFmpeg's hwaccel) or vfilter (its own: sends frames ahead and asks "
         "whether each is done, instead of waiting in the driver's polling loop: less CPU a frame)",
         "ffmpeg", nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.input.nvdec_decoder = choice<NvdecDecoderKind>(v, {{"ffmpeg", NvdecDecoderKind::Ffmpeg}, {"vfilter", NvdecDecoderKind::Vfilter}});
         }},
        {"--gpu-streams", "CUDA streams in the GPU stage: frames whose upload, kernels and download overlap", "6", nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.filter.gpu_streams = whole(v, 1, 16); }},
        {"--decoder-threads", "decoder threads (0 = automatic: all cores for a file; a live or paced input decoded on the CPU, one up "
         "to 1080p30 and one more for each 1080p30's worth beyond, since each frame thread holds every frame back "
         "a frame period; 1 with NVDEC)", nullptr, nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.input.decoder_threads = whole(v, 0, 64); }},
        {"--encoder-threads", "encoder threads (0 = the encoder's choice: x264 takes 1.5 per core)", nullptr, nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.output.encoder_threads = whole(v, 0, 64); }},
        {"--timeout",
         "seconds an input may send nothing before vfilter gives up (default: 10 for network inputs, none for files and pipes; 0 = "
         "never)",
         nullptr, nullptr, false, FieldType::Number, [](RunOptions& o, const FieldValue& v) { o.input.timeout_s = number(v, 0, 86400); }},
        {"--allow-protocols",
         "protocols the input (and what it references) may use, e.g. file,http; default: file,pipe for local inputs, "
         "rtsp,rtsps,rtp,udp,tcp,rtmp,rtmps,srt,http,https,tls for network ones",
         nullptr, nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.allow_protocols = text(v); }, FieldSetter::Operator},
        {"--rtsp-transport", "RTSP inputs: tcp or udp", "tcp", nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.rtsp_transport = choice<std::string>(v, {{"tcp", "tcp"}, {"udp", "udp"}}); }},
        {"--input-size", "capture devices (/dev/videoN): size to ask for, e.g. 1280x720", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.size = text(v); }},
        {"--input-fps", "capture devices: frame rate to ask for", nullptr, nullptr, false,
         FieldType::Number, [](RunOptions& o, const FieldValue& v) { o.input.fps = number(v, 0, 1000); }},
        {"--input-format", "capture devices: pixel format or codec to ask for (yuyv422, mjpeg, ...)", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.format = text(v); }},
        {"--decoder", "the input's video decoder by name, instead of the stream's own (ffmpeg's -c:v before -i; e.g. pgmyuv for "
         "FFmpeg's test frames, .pgm files that hold YUV 4:2:0)", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.input.decoder = text(v); }, FieldSetter::Operator},
        {"--realtime", "read the input at its own pace, as if live (like ffmpeg -re)", nullptr, nullptr, true,
         FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.input.realtime = boolean(v); }},
        {"--on-overload",
         "when filtering falls behind: drop frames, or block the input; default: drop for live inputs, block for files", "auto",
         nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.pipeline.on_overload =
                 choice<OverloadPolicy>(v, {{"auto", OverloadPolicy::Auto}, {"drop", OverloadPolicy::Drop}, {"block", OverloadPolicy::Block}});
         }},
        {"--reconnect-max", "live inputs: reconnect attempts per outage (-1 = forever, 0 = never)", "-1", nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.input.reconnect_max = whole(v, -1, 1000000); }},
        {"--reconnect-delay", "seconds before the first reconnect attempt; doubles per attempt up to 30", "1", nullptr, false,
         FieldType::Number, [](RunOptions& o, const FieldValue& v) { o.input.reconnect_delay_s = number(v, 0, 3600); }},
        {"--wait-for-input",
         "a network input or capture device that cannot be opened yet (a camera still booting) is retried like a reconnect "
         "instead of failing (serve's default); refused credentials, an unknown stream or a malformed address still fail at once",
         nullptr, nullptr, true, FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.input.wait_for_input = boolean(v); }},
        {"--out-format",
         "output container when the name does not say (default: from the extension; flv for rtmp://, rtsp for rtsp://, mpegts for "
         "srt://, udp:// and - (stdout))",
         nullptr, nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.format = text(v); }},
        {"--bitexact", "write no library versions or dates into the output (ffmpeg's -bitexact): the same bytes from every build",
         nullptr, nullptr, true, FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.output.bitexact = boolean(v); }},
        {"--time-base",
         "the output's time base: input (the input's, every timestamp kept exactly) or frame-rate (1/frame rate, ffmpeg's; "
         "timestamps rounded to it)",
         "input", nullptr, false, FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.output.time_base = choice<OutputTimeBase>(v, {{"input", OutputTimeBase::Input}, {"frame-rate", OutputTimeBase::FrameRate}});
         }},
        {"--fragmented",
         "MP4/MOV written as 1 s fragments in place, playable up to the last one if vfilter is killed; auto = for live inputs", "auto",
         nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             o.output.fragmented = choice<FragmentedMode>(v, {{"auto", FragmentedMode::Auto}, {"yes", FragmentedMode::Yes}, {"no", FragmentedMode::No}});
         }},
        {"--segment", "write a new file every SECONDS (name them with %03d or strftime fields, else -00000 is added)", nullptr, nullptr,
         false, FieldType::Number, [](RunOptions& o, const FieldValue& v) {
             const double seconds = number(v, 0, 86400);
             if (seconds > 0 && seconds < 1) throw BadValue("expected 0 (one file) or at least 1 second");
             o.output.segment_s = seconds;
         }},
        {"--hls-time", "an .m3u8 output (HLS): seconds a segment, each starting at a keyframe", "2", nullptr, false,
         FieldType::Number, [](RunOptions& o, const FieldValue& v) { o.output.hls_time_s = number(v, 0.5, 3600); }},
        {"--hls-segments",
         "an .m3u8 output: ts (MPEG-TS segments, name-00001.ts) or fmp4 (fragmented MP4, name-00001.m4s after name-init.mp4, "
         "what browsers' Media Source Extensions play)",
         "ts", nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) { o.output.hls_fmp4 = choice<bool>(v, {{"ts", false}, {"fmp4", true}}); }},
        {"--hls-window",
         "an .m3u8 output of a live input: segments the playlist lists, older ones deleted (files list every segment)", "6",
         nullptr, false, FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.output.hls_window = whole(v, 1, 100000); }},
        {"--retain", "--segment recordings: delete finished files older than this (90s, 30m, 12h, 7d, 2w)", nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             double s = 0;
             if (!parse_age_s(text(v), &s)) throw BadValue("expected an age such as 90s, 30m, 12h, 7d or 2w");
             o.output.retain_s = s;
         }},
        {"--retain-size",
         "--segment recordings: keep at most this much of finished files, the oldest deleted first (500M, 20G; K, M, G, T are "
         "powers of 1024)",
         nullptr, nullptr, false,
         FieldType::Text, [](RunOptions& o, const FieldValue& v) {
             int64_t b = 0;
             if (!parse_bytes(text(v), &b)) throw BadValue("expected a size such as 500M, 20G or 2T");
             o.output.retain_bytes = b;
         }},
        {"--low-latency",
         "minimise delay: zero-latency encoding (no B-frames, no look-ahead), small queues, no input buffering", nullptr, nullptr, true,
         FieldType::Boolean, [](RunOptions& o, const FieldValue& v) { o.pipeline.low_latency = boolean(v); }},
        {"--frames", "stop after this many frames", nullptr, nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) {
             o.pipeline.max_frames = whole_number(v, 0, std::numeric_limits<long long>::max());
         }},
        {"--queue", "frames buffered between stages", "8", nullptr, false,
         FieldType::Integer, [](RunOptions& o, const FieldValue& v) { o.pipeline.queue_frames = whole(v, 1, 256); }, FieldSetter::Operator},
    };
    return table;
}

// The option's long names without dashes ("out", "output" for "-o,--out,--output").
std::vector<std::string> field_names(const StreamOption& opt) {
    std::vector<std::string> names;
    std::string all = opt.names;
    for (size_t at = 0; at < all.size();) {
        const size_t comma = all.find(',', at);
        const std::string name = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (name.rfind("--", 0) == 0) names.push_back(name.substr(2));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return names;
}

// The command line's options that are commands rather than settings of anything.
const char* const kCommands[] = {"list-filters", "list-kernels", "version", "help"};

// A stream field that is no option of a stream: one of the process (ProcessOptions) or a command.
// Throws Error(Usage) naming the field and where it belongs.
void refuse_if_not_of_a_stream(const std::string& field) {
    if (const char* where = where_process_option_is_set(field))
        fail(ErrorCategory::Usage, "field '" + field + "' belongs to the process, not to one stream: set it with " + where);
    for (const char* command : kCommands)
        if (field == command) fail(ErrorCategory::Usage, "field '" + field + "' is a command of vfilter, not a field of a stream");
}

}  // namespace

void add_stream_options(CLI::App& app, RunOptions& o) {
    for (const StreamOption& opt : stream_option_table()) {
        const std::string long_name = "--" + field_names(opt).front();
        CLI::Option* added = nullptr;
        if (opt.flag) {
            added = app.add_flag_function(opt.names, [&o, &opt](int64_t) { opt.set(o, "true"); }, opt.help);
        } else {
            added = app.add_option_function<std::string>(
                opt.names,
                [&o, &opt, long_name](const std::string& v) {
                    try {
                        opt.set(o, v);
                    } catch (const BadValue& e) {
                        throw CLI::ValidationError(long_name + " '" + v + "': " + e.what());
                    } catch (const Error& e) {  // a filter chain refused by its compiler, which names the filter
                        throw CLI::ValidationError(long_name + ": " + e.what());
                    }
                },
                opt.help);
        }
        if (opt.default_text) added->default_str(opt.default_text);
        if (opt.env) added->envname(opt.env);
    }
}

std::vector<std::pair<std::string, FieldSetter>> stream_fields() {
    std::vector<std::pair<std::string, FieldSetter>> fields;
    for (const StreamOption& opt : stream_option_table()) fields.emplace_back(field_names(opt).back(), opt.who);
    for (const std::string& w : watch_field_names()) fields.emplace_back(w, FieldSetter::Admin);
    for (const std::string& c : clip_field_names()) fields.emplace_back(c, FieldSetter::Admin);
    return fields;
}

FieldType field_type(const std::string& field) {
    if (is_watch_field(field)) return watch_field_type(field);
    if (is_clip_field(field)) return clip_field_type(field);
    for (const StreamOption& opt : stream_option_table())
        for (const std::string& n : field_names(opt))
            if (n == field) return opt.type;
    return FieldType::Text;
}

FieldSetter field_setter(const std::string& field) {
    for (const StreamOption& opt : stream_option_table())
        for (const std::string& n : field_names(opt))
            if (n == field) return opt.who;
    return FieldSetter::Admin;  // an unknown field is refused when read, with the list of fields
}

RunOptions stream_options_from_fields(const StreamFields& fields, bool serve) {
    RunOptions o;
    std::map<std::string, const StreamOption*> by_name;
    for (const StreamOption& opt : stream_option_table())
        for (const std::string& n : field_names(opt)) by_name[n] = &opt;
    std::map<const StreamOption*, std::string> given;  // one value an option, whichever name gave it
    for (const auto& [key, value] : fields) {
        if (is_watch_field(key) || is_clip_field(key)) {
            if (serve) continue;  // serve's watch and clips read them (app/run/watch_fields.hpp, clip_fields.hpp)
            fail(ErrorCategory::Usage, "field '" + key + "' belongs to vfilter serve, whose streams watch themselves; a single run does not");
        }
        refuse_if_not_of_a_stream(key);
        const auto opt = by_name.find(key);
        if (opt == by_name.end())
            fail(ErrorCategory::Usage, "unknown field '" + key + "' (fields are the long options of vfilter, without dashes: "
                                       "input, filter, output, codec, crf, preset, segment, fragmented, reconnect-max, timeout, "
                                       "on-overload, low-latency, hwdec, realtime, ...)");
        if (!given.emplace(opt->second, key).second)
            fail(ErrorCategory::Usage, "field '" + key + "' and field '" + given[opt->second] + "' are the same option; give one");
        try {
            opt->second->set(o, value);
        } catch (const BadValue& e) {
            fail(ErrorCategory::Usage, "field '" + key + "': '" + value.text + "': " + e.what());
        } catch (const Error& e) {  // a filter chain refused by its compiler, which names the filter
            rethrow_prefixed(e, "field '" + key + "': ");
        }
    }
    // What the environment gives every stream that does not say (as on the command line).
    for (const StreamOption& opt : stream_option_table()) {
        if (!opt.env || given.count(&opt)) continue;
        if (const char* value = std::getenv(opt.env)) {
            try {
                opt.set(o, value);
            } catch (const BadValue& e) {
                fail(ErrorCategory::Usage, std::string(opt.env) + "='" + value + "': " + e.what());
            }
        }
    }
    return o;
}

}  // namespace vf
