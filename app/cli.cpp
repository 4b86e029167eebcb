#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "common/redact.hpp"
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

}  // namespace


Command parse_command_line(int argc, char** argv) {
    Command cmd;
    RunOptions& o = cmd.run;
    CLI::App app{"vfilter: real-time video filtering (convolutions on CPU or GPU) on files, cameras and streams.\n"
                 "Example: vfilter --input cam.mp4 --filter sobel --out edges.mp4"};
    app.set_version_flag("--version", "vfilter 0.1.0");
    bool list = false, verbose = false, very_verbose = false, quiet = false, no_progress = false;
    std::string log_format = "text";
    std::string device = "auto", kernel = "auto", hwdec = "auto", on_overload = "auto", fragmented = "auto";
    std::string compat = "vfilter", output_last;
    double crf = -1;
    app.add_option("-i,--input", o.input,
                   "file, URL (rtsp://, rtmp://, srt://, udp://, http://), capture device (/dev/video0) or - (stdin); "
                   "omitted: a built-in 1280x720@30 test pattern, 10 s");
    app.add_option("-f,--filter", o.filter, "filter chain, e.g. \"gaussian=sigma=2,sobel\" (see --list-filters)")
        ->default_str("identity");
    app.add_option("-o,--out,--output", o.output,
                   "output file (container from its name), rtsp:// rtmp:// srt:// udp:// URL to publish to, - for stdout, "
                   "or null to discard");
    // Not named "output": newer CLI11 refuses a positional named like the --output option.
    app.add_option("OUTFILE", output_last, "the output may also come last without -o, as with ffmpeg");
    app.add_option("--compat", compat,
                   "whose defaults filter strings get: vfilter (a bare sobel edges the luma and greys the chroma) or "
                   "ffmpeg (the ffmpeg command's defaults: the same string gives its output)")
        ->default_str("vfilter")->check(CLI::IsMember({"vfilter", "ffmpeg"}))->envname("VFILTER_COMPAT");
    app.add_flag("-y,--overwrite", o.overwrite, "overwrite an existing output file");
    app.add_option("--codec", o.codec, "video encoder: auto (h264_nvenc on a GPU that has NVENC, else libx264), libx264, libx265, h264_nvenc, hevc_nvenc, mpeg4, ffv1, rawvideo, ...")->default_str("auto");
    app.add_option("--crf", crf, "constant quality (x264/x265: 0-51, default 23; mpeg4: qscale 1-31, default 3)")
        ->check(CLI::Range(0.0, 63.0));
    CLI::Option* preset = app.add_option("--preset", o.preset, "x264/x265 preset (default veryfast; superfast with --low-latency)");
    app.add_option("--bitrate", o.bitrate, "target bitrate instead of constant quality, e.g. 4M");
    app.add_flag("--no-audio", o.no_audio, "leave audio and subtitle streams out");
    app.add_option("--threads", o.threads, "CPU filter threads (0 = one per core)")->check(CLI::Range(0, 1024));
    app.add_option("--device", device, "where filters run: auto (GPU when present), cpu, cuda")
        ->default_str("auto")->check(CLI::IsMember(names_of(kDevices)));
    app.add_option("--kernel", kernel,
                   "GPU kernel: auto, a family (naive, constant, tiled, separable, fft, tensor) or a variant's name "
                   "(see --list-kernels)")
        ->default_str("auto");
    app.add_option("--hwdec", hwdec, "decode on the GPU with NVDEC: auto (when filtering on the GPU and the codec allows), cuda, none")
        ->default_str("auto")->check(CLI::IsMember(names_of(kHwDecodes)));
    app.add_option("--gpu-streams", o.gpu_streams, "CUDA streams in the GPU stage: frames whose upload, kernels and download overlap")
        ->default_str("6")->check(CLI::Range(1, 16));
    app.add_option("--decoder-threads", o.decoder_threads, "decoder threads (0 = automatic: all cores, or 1 with NVDEC)")
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
    app.add_option("--on-overload", on_overload,
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
    app.add_option("--fragmented", fragmented,
                   "MP4/MOV written as 1 s fragments in place, playable up to the last one if vfilter is killed; "
                   "auto = for live inputs")->default_str("auto")->check(CLI::IsMember(names_of(kFragmentedModes)));
    app.add_option("--segment", o.segment_s,
                   "write a new file every SECONDS (name them with %03d or strftime fields, else -00000 is added)")
        ->check(CLI::Range(0.0, 86400.0));
    app.add_flag("--low-latency", o.low_latency,
                 "minimise delay: zero-latency encoding (no B-frames, no look-ahead), small queues, no input buffering");
    app.add_option("--metrics-port", o.metrics_port, "serve Prometheus metrics at http://BIND:PORT/metrics")
        ->check(CLI::Range(0, 65535))->envname("VFILTER_METRICS_PORT");
    app.add_option("--metrics-bind", o.metrics_bind, "address for --metrics-port")->default_str("127.0.0.1")
        ->envname("VFILTER_METRICS_BIND");
    app.add_option("--stats-json", o.stats_json, "write the run summary as JSON to this file");
    app.add_option("--frames", o.max_frames, "stop after this many frames")->check(CLI::Range(int64_t(0), INT64_MAX));
    app.add_option("--queue", o.queue_frames, "frames buffered between stages")->default_str("8");
    app.add_flag("-v,--verbose", verbose, "more log output");
    app.add_flag("--debug", very_verbose, "even more log output, FFmpeg's included");
    app.add_flag("-q,--quiet", quiet, "errors only, no progress");
    app.add_flag("--no-progress", no_progress, "no progress line");
    app.add_option("--log-format", log_format, "text or json (one object per line)")->check(CLI::IsMember({"text", "json"}));
    app.add_flag("--list-filters", list, "list filters with their options and defaults");
    bool list_kernels = false;
    app.add_flag("--list-kernels", list_kernels, "print the GPU dispatch table: every kernel variant, what it takes, when auto runs it");

    CLI::App* bench = app.add_subcommand("bench", "time each filter (CPU, or --device cuda) or the GPU stage (--pipeline) and print a table");
    BenchOptions& b = cmd.bench;
    bench->add_option("--size", b.sizes, "plane sizes WxH (repeatable)")->default_str("1920x1080");
    bench->add_option("--filter", b.filters, "filter specs to time (repeatable); default: the standard set");
    bench->add_option("--repeat", b.repeat, "timed runs per case (median reported)")->check(CLI::Range(1, 10000));
    bench->add_option("--threads", b.threads, "CPU threads (0 = all)");
    bench->add_option("--json", b.json, "also write the results as JSON");
    std::string bench_device = "cpu";
    bench->add_option("--device", bench_device, "cpu, or cuda for the GPU benchmark (vfilter variants, NPP, floor)")
        ->default_str("cpu")->check(CLI::IsMember({"cpu", "cuda"}));
    bench->add_flag("--pipeline", b.pipeline,
                    "time the GPU stage alone: upload, kernels, download each alone and overlapped on several streams");
    bench->add_option("--frames", b.frames, "frames per --pipeline measurement")->check(CLI::Range(10, 100000));
    bench->add_option("--gpu-streams", b.gpu_streams, "streams for --pipeline")->check(CLI::Range(1, 16));

    CLI::App* batch = app.add_subcommand(
        "batch", "filter every file of a list into a folder, skipping outputs already complete; with --shard, one "
                 "slice of the list (Kubernetes Indexed Jobs); the other options apply to every file");
    BatchOptions& bo = cmd.batch;
    std::string shard = "0/1";
    batch->add_option("--list", bo.list, "file naming one input per line (# comments; relative to the list's folder)")->required();
    batch->add_option("--out-dir", bo.out_dir, "folder of the outputs, each named after its input")->required();
    batch->add_option("--out-ext", bo.out_ext, "the outputs' extension, which names their container")->default_str("mp4");
    batch->add_option("--shard", shard, "INDEX/COUNT: take the inputs at positions INDEX, INDEX+COUNT, ... of the list")
        ->default_str("0/1");
    batch->fallthrough();

    CLI::App* health = app.add_subcommand(
        "health", "container health check: asks the metrics endpoint of a running vfilter (VFILTER_METRICS_PORT) "
                  "whether its input is up; exit 0 when it is, or when no endpoint is configured");

    // ffmpeg's spellings of the filter option, which CLI11 cannot declare (one dash, two letters).
    std::vector<std::string> words(argv, argv + argc);
    for (size_t i = 1; i < words.size(); ++i)
        if (words[i] == "-vf" || words[i] == "-filter:v") words[i] = "--filter";
    std::vector<char*> args;
    for (std::string& w : words) args.push_back(w.data());
    try {
        app.parse(static_cast<int>(args.size()), args.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) {
            app.exit(e);
            cmd.kind = Command::Exit;
            cmd.exit_code = 0;
            return cmd;
        }
        std::fprintf(stderr, "vfilter: error: %s (see vfilter --help)\n", redact_credentials(e.what()).c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
        return cmd;
    }
    if (crf >= 0) o.crf = crf;
    o.compat = compat == "ffmpeg" ? FilterDefaults::Ffmpeg : FilterDefaults::Vfilter;
    o.device = choice_of(device, kDevices);
    o.hwdec = choice_of(hwdec, kHwDecodes);
    o.on_overload = choice_of(on_overload, kOverloadPolicies);
    o.fragmented = choice_of(fragmented, kFragmentedModes);
    b.device = choice_of(bench_device, kDevices);
    // Low latency: one frame's encode time is the latency, so a faster preset is the better default.
    if (o.low_latency && preset->count() == 0) o.preset = "superfast";
    o.verbosity = quiet ? -1 : (very_verbose ? 2 : (verbose ? 1 : 0));
    o.log_format = log_format == "json" ? LogFormat::Json : LogFormat::Text;
    o.progress = !no_progress && !quiet;
    const bool two_outputs = !output_last.empty() && !o.output.empty();
    if (o.output.empty()) o.output = output_last;
    if (list) cmd.kind = Command::ListFilters;
    else if (list_kernels) cmd.kind = Command::ListKernels;
    else if (bench->parsed()) cmd.kind = Command::Bench;
    else if (health->parsed()) cmd.kind = Command::Health;
    else if (!parse_kernel_choice(kernel, &o.kernel)) {
        std::fprintf(stderr, "vfilter: error: --kernel '%s': expected %s (see vfilter --list-kernels)\n", kernel.c_str(),
                     kernel_choices().c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
    } else if (batch->parsed()) {
        std::string why;
        if (!parse_shard(shard, &bo.shard_index, &bo.shard_count, &why)) {
            std::fprintf(stderr, "vfilter: error: %s\n", why.c_str());
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
        } else if (!o.output.empty()) {
            std::fprintf(stderr, "vfilter: error: batch names its outputs after its inputs in --out-dir; leave out -o\n");
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
        } else {
            cmd.kind = Command::Batch;
        }
    } else if (two_outputs) {
        std::fprintf(stderr, "vfilter: error: two outputs given ('%s' with -o and '%s' last); give one\n",
                     redact_credentials(o.output).c_str(), redact_credentials(output_last).c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
    } else if (o.output.empty()) {
        std::fprintf(stderr, "vfilter: error: no output given: use --out FILE (or --out null to discard) (see vfilter --help)\n");
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
    }
    return cmd;
}

}  // namespace vf
