#include "app/stream_options.hpp"

#include <CLI/CLI.hpp>

#include <vector>

#include "common/error.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {
namespace {

// The enum each accepted word of a choice option stands for; CLI11 has already refused others.
template <typename T>
T choice_of(const std::string& word, std::initializer_list<std::pair<const char*, T>> words) {
    for (const auto& [name, value] : words)
        if (word == name) return value;
    return words.begin()->second;
}

template <typename T>
std::vector<std::string> names_of(std::initializer_list<std::pair<const char*, T>> words) {
    std::vector<std::string> names;
    for (const auto& w : words) names.push_back(w.first);
    return names;
}

const std::initializer_list<std::pair<const char*, DeviceChoice>> kDevices = {
    {"auto", DeviceChoice::Auto}, {"cpu", DeviceChoice::Cpu}, {"cuda", DeviceChoice::Cuda}};
const std::initializer_list<std::pair<const char*, HwDecode>> kHwDecodes = {
    {"auto", HwDecode::Auto}, {"cuda", HwDecode::Cuda}, {"none", HwDecode::None}};
const std::initializer_list<std::pair<const char*, OverloadPolicy>> kOverloadPolicies = {
    {"auto", OverloadPolicy::Auto}, {"drop", OverloadPolicy::Drop}, {"block", OverloadPolicy::Block}};
const std::initializer_list<std::pair<const char*, FragmentedMode>> kFragmentedModes = {
    {"auto", FragmentedMode::Auto}, {"yes", FragmentedMode::Yes}, {"no", FragmentedMode::No}};

// Options of the single-stream command line that belong to the whole serve process.
const char* const kProcessWide[] = {"metrics-port", "metrics-bind", "stats-json", "verbose", "debug", "quiet",
                                    "no-progress", "log-format", "list-filters", "list-kernels", "version", "help"};

}  // namespace

void add_stream_options(CLI::App& app, RunOptions& o, StreamOptionWords& w) {
    app.add_option("-i,--input", o.input,
                   "file, URL (rtsp://, rtmp://, srt://, udp://, http://), capture device (/dev/video0) or - (stdin); "
                   "omitted: a built-in 1280x720@30 test pattern, 10 s");
    app.add_option("-f,--filter", o.filter, "filter chain, e.g. \"gaussian=sigma=2,sobel\" (see --list-filters)")
        ->default_str("identity");
    app.add_option("-o,--out,--output", o.output,
                   "output file (container from its name), rtsp:// rtmp:// srt:// udp:// URL to publish to, - for stdout, "
                   "or null to discard");
    app.add_option("--compat", w.compat,
                   "whose defaults filter strings get: vfilter (a bare sobel edges the luma and greys the chroma) or "
                   "ffmpeg (the ffmpeg command's defaults: the same string gives its output)")
        ->default_str("vfilter")->check(CLI::IsMember({"vfilter", "ffmpeg"}))->envname("VFILTER_COMPAT");
    app.add_flag("-y,--overwrite", o.overwrite, "overwrite an existing output file");
    app.add_option("--codec", o.codec, "video encoder: auto (h264_nvenc on a GPU that has NVENC, else libx264), libx264, libx265, h264_nvenc, hevc_nvenc, mpeg4, ffv1, rawvideo, ...")->default_str("auto");
    app.add_option("--crf", w.crf, "constant quality (x264/x265: 0-51, default 23; mpeg4: qscale 1-31, default 3)")
        ->check(CLI::Range(0.0, 63.0));
    w.preset = app.add_option("--preset", o.preset, "x264/x265 preset (default veryfast; superfast with --low-latency)");
    app.add_option("--bitrate", o.bitrate, "target bitrate instead of constant quality, e.g. 4M");
    app.add_flag("--no-audio", o.no_audio, "leave audio and subtitle streams out");
    app.add_option("--threads", o.threads, "CPU filter threads (0 = one per core)")->check(CLI::Range(0, 1024));
    app.add_option("--device", w.device, "where filters run: auto (GPU when present), cpu, cuda")
        ->default_str("auto")->check(CLI::IsMember(names_of(kDevices)))->envname("VFILTER_DEVICE");
    app.add_option("--kernel", w.kernel,
                   "GPU kernel: auto, a family (naive, constant, tiled, separable, fft, tensor) or a variant's name "
                   "(see --list-kernels)")
        ->default_str("auto");
    app.add_option("--hwdec", w.hwdec, "decode on the GPU with NVDEC: auto (when filtering on the GPU and the codec allows), cuda, none")
        ->default_str("auto")->check(CLI::IsMember(names_of(kHwDecodes)));
    app.add_option("--gpu-streams", o.gpu_streams, "CUDA streams in the GPU stage: frames whose upload, kernels and download overlap")
        ->default_str("6")->check(CLI::Range(1, 16));
    app.add_option("--decoder-threads", o.decoder_threads, "decoder threads (0 = automatic: all cores, or 1 with NVDEC)")
        ->check(CLI::Range(0, 64));
    app.add_option("--encoder-threads", o.encoder_threads, "encoder threads (0 = the encoder's choice: x264 takes 1.5 per core)")
        ->check(CLI::Range(0, 64));
    app.add_option("--timeout", o.timeout_s,
                   "seconds an input may send nothing before vfilter gives up (default: 10 for network inputs, "
                   "none for files and pipes; 0 = never)")
        ->check(CLI::Range(0.0, 86400.0));
    app.add_option("--allow-protocols", o.allow_protocols,
                   "protocols the input (and what it references) may use, e.g. file,http; default: file,pipe for "
                   "local inputs, rtsp,rtsps,rtp,udp,tcp,rtmp,rtmps,srt,http,https,tls for network ones");
    app.add_option("--rtsp-transport", o.rtsp_transport, "RTSP inputs: tcp or udp")
        ->default_str("tcp")->check(CLI::IsMember({"tcp", "udp"}));
    app.add_option("--input-size", o.input_size, "capture devices (/dev/videoN): size to ask for, e.g. 1280x720");
    app.add_option("--input-fps", o.input_fps, "capture devices: frame rate to ask for")->check(CLI::Range(0.0, 1000.0));
    app.add_option("--input-format", o.input_format, "capture devices: pixel format or codec to ask for (yuyv422, mjpeg, ...)");
    app.add_flag("--realtime", o.realtime, "read the input at its own pace, as if live (like ffmpeg -re)");
    app.add_option("--on-overload", w.on_overload,
                   "when filtering falls behind: drop frames, or block the input; default: drop for live inputs, block for files")
        ->default_str("auto")->check(CLI::IsMember(names_of(kOverloadPolicies)));
    app.add_option("--reconnect-max", o.reconnect_max,
                   "live inputs: reconnect attempts per outage (-1 = forever, 0 = never)")->default_str("-1")
        ->check(CLI::Range(-1, 1000000));
    app.add_option("--reconnect-delay", o.reconnect_delay_s, "seconds before the first reconnect attempt; doubles per attempt up to 30")
        ->default_str("1")->check(CLI::Range(0.0, 3600.0));
    app.add_option("--out-format", o.out_format,
                   "output container when the name does not say (default: from the extension; flv for rtmp://, rtsp for "
                   "rtsp://, mpegts for srt://, udp:// and - (stdout))");
    app.add_option("--fragmented", w.fragmented,
                   "MP4/MOV written as 1 s fragments in place, playable up to the last one if vfilter is killed; "
                   "auto = for live inputs")->default_str("auto")->check(CLI::IsMember(names_of(kFragmentedModes)));
    app.add_option("--segment", o.segment_s,
                   "write a new file every SECONDS (name them with %03d or strftime fields, else -00000 is added)")
        ->check(CLI::Range(0.0, 86400.0));
    app.add_flag("--low-latency", o.low_latency,
                 "minimise delay: zero-latency encoding (no B-frames, no look-ahead), small queues, no input buffering");
    app.add_option("--frames", o.max_frames, "stop after this many frames")->check(CLI::Range(int64_t(0), INT64_MAX));
    app.add_option("--queue", o.queue_frames, "frames buffered between stages")->default_str("8")->check(CLI::Range(1, 256));
}

std::string finish_stream_options(const StreamOptionWords& w, RunOptions& o) {
    if (w.crf >= 0) o.crf = w.crf;
    o.compat = w.compat == "ffmpeg" ? FilterDefaults::Ffmpeg : FilterDefaults::Vfilter;
    o.device = choice_of(w.device, kDevices);
    o.hwdec = choice_of(w.hwdec, kHwDecodes);
    o.on_overload = choice_of(w.on_overload, kOverloadPolicies);
    o.fragmented = choice_of(w.fragmented, kFragmentedModes);
    // Low latency: one frame's encode time is the latency, so a faster preset is the better default.
    if (o.low_latency && w.preset && w.preset->count() == 0) o.preset = "superfast";
    if (!parse_kernel_choice(w.kernel, &o.kernel))
        return "--kernel '" + w.kernel + "': expected " + kernel_choices() + " (see vfilter --list-kernels)";
    return "";
}

RunOptions stream_options_from_fields(const std::map<std::string, std::string>& fields) {
    RunOptions o;
    StreamOptionWords w;
    CLI::App app{"stream"};
    add_stream_options(app, o, w);
    std::vector<std::string> args = {"stream"};
    for (const auto& [key, value] : fields) {
        for (const char* p : kProcessWide)
            if (key == p)
                fail(ErrorCategory::Usage, "field '" + key + "' applies to the whole serve process, not to one stream (give it to vfilter serve)");
        if (key.empty() || key[0] == '-' || !app.get_option_no_throw("--" + key))
            fail(ErrorCategory::Usage, "unknown field '" + key + "' (fields are the long options of vfilter, without dashes: "
                                       "input, filter, output, codec, crf, preset, segment, fragmented, reconnect-max, timeout, "
                                       "on-overload, low-latency, hwdec, realtime, ...)");
        args.push_back("--" + key + "=" + value);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
        std::string why = e.what();
        fail(ErrorCategory::Usage, why);
    }
    if (const std::string why = finish_stream_options(w, o); !why.empty()) fail(ErrorCategory::Usage, why);
    return o;
}

}  // namespace vf
