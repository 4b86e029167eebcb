#include "app/cli/cli.hpp"
#include "app/run/stream_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "common/redact.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

Command parse_command_line(int argc, char** argv) {
    Command cmd;
    RunOptions& o = cmd.run;
    CLI::App app{"vfilter: real-time video filtering (convolutions on CPU or GPU) on files, cameras and streams.\n"
                 "Example: vfilter --input cam.mp4 --filter sobel --out edges.mp4"};
    app.set_version_flag("--version", "vfilter 0.1.0");
    bool list = false, verbose = false, very_verbose = false, quiet = false, no_progress = false;
    std::string log_format = "text";
    std::string output_last;
    add_stream_options(app, o);
    // Not named "output": newer CLI11 refuses a positional named like the --output option.
    app.add_option("OUTFILE", output_last, "the output may also come last without -o, as with ffmpeg");
    app.add_option("--metrics-port", o.metrics_port, "serve Prometheus metrics at http://BIND:PORT/metrics")
        ->check(CLI::Range(0, 65535))->envname("VFILTER_METRICS_PORT");
    app.add_option("--metrics-bind", o.metrics_bind, "address for --metrics-port")->default_str("127.0.0.1")
        ->envname("VFILTER_METRICS_BIND");
    app.add_option("--stats-json", o.stats_json, "write the run summary as JSON to this file");
    std::string min_free;
    app.add_option("--min-free", min_free,
                   "--segment recordings: keep this much of the disk free (5%, 20G) by deleting the oldest finished files");
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
    bench->add_option("--batch", b.batches,
                      "with --pipeline: time the kernels alone with these many frames a launch instead (e.g. --batch 1 "
                      "--batch 4 --batch 16; default filters sobel and a 5x5)")
        ->check(CLI::Range(1, 256));

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

    CLI::App* serve = app.add_subcommand(
        "serve", "run every stream of a YAML file in one process (one GPU context for all), with a control API; "
                 "SIGHUP re-reads the file (docs/serve.md)");
    ServeOptions& so = cmd.serve;
    serve->add_option("--config", so.config, "YAML file: a defaults: block and a streams: list");
    serve->add_option("--demo", so.demo_streams,
                      "try serve without cameras: N streams (default 4) of built-in moving pictures, each with another "
                      "filter, the page on http://127.0.0.1:8080/ (or --api-port); nothing is written")
        ->expected(0, 1)->default_str("4")->check(CLI::Range(1, 16));
    serve->add_option("--api-port", so.api_port, "serve the control API, the page (/), /metrics, /healthz and /readyz on this port")
        ->check(CLI::Range(0, 65535))->envname("VFILTER_API_PORT");
    serve->add_option("--api-bind", so.api_bind, "address of the API (anything but 127.x needs a token)")
        ->default_str("127.0.0.1")->envname("VFILTER_API_BIND");
    serve->add_option("--api-token", so.api_token,
                      "admin token (16+ characters) that changes through the API must carry; prefer VFILTER_API_TOKEN or "
                      "--api-token-file, since a command line shows in ps")
        ->envname("VFILTER_API_TOKEN");
    serve->add_option("--api-token-file", so.api_token_file,
                      "read the admin token from this file's first line (a systemd LoadCredential or a Kubernetes Secret)")
        ->envname("VFILTER_API_TOKEN_FILE");
    serve->add_option("--viewer-token", so.viewer_token,
                      "a second token that may only look: the page, stream lists, snapshots and live video")
        ->envname("VFILTER_VIEWER_TOKEN");
    serve->add_option("--viewer-token-file", so.viewer_token_file, "read the viewer token from this file's first line")
        ->envname("VFILTER_VIEWER_TOKEN_FILE");
    serve->add_option("--api-host", so.api_hosts,
                      "further names of this server, comma separated, that a request's Host may give (a Service's DNS "
                      "name); others are refused, so that a web page cannot reach the API by rebinding its own name")
        ->envname("VFILTER_API_HOST");
    CLI::Option* tls_cert = serve->add_option("--tls-cert", so.tls_cert,
                      "PEM certificate of the API (and any intermediate CA's after it): the API port then speaks HTTPS "
                      "only (TLS 1.2 and later), and --peers are called over HTTPS; with --tls-key")
        ->envname("VFILTER_TLS_CERT");
    CLI::Option* tls_key = serve->add_option("--tls-key", so.tls_key, "PEM private key of --tls-cert (no passphrase)")
        ->envname("VFILTER_TLS_KEY");
    tls_cert->needs(tls_key);
    tls_key->needs(tls_cert);
    serve->add_option("--tls-ca", so.tls_ca,
                      "PEM file of the CA certificates that peers' certificates must come from (a fleet's private CA; "
                      "default: the system's); a peer whose certificate is not trusted or does not name it is never sent a request")
        ->envname("VFILTER_TLS_CA")->needs(tls_cert);
    serve->add_option("--media-root", so.media_root,
                      "a folder whose files streams added through the API may read (none by default: network URLs and "
                      "pattern:// only)")
        ->envname("VFILTER_MEDIA_ROOT");
    serve->add_option("--recordings-root", so.recordings_root,
                      "a folder streams added through the API may record into (none by default: null or --output-hosts only)")
        ->envname("VFILTER_RECORDINGS_ROOT");
    serve->add_option("--kernel-dir", so.kernel_dir,
                      "a folder of kernel files that filters set through the API may read with file=NAME (none by default)")
        ->envname("VFILTER_KERNEL_DIR");
    serve->add_option("--output-hosts", so.output_hosts,
                      "hosts that streams added through the API may publish to (rtsp://, rtmp://, srt://, udp://), comma "
                      "separated (none by default)")
        ->envname("VFILTER_OUTPUT_HOSTS");
    serve->add_option("--max-streams", so.max_streams, "streams this process runs at most; more are refused (503)")
        ->default_str("512")->check(CLI::Range(1, 100000));
    serve->add_option("--max-previews", so.max_previews,
                      "previews and live-video answers served at once, each running its own encoders; more get 503")
        ->default_str("8")->check(CLI::Range(1, 256));
    serve->add_option("--max-preview-encoders", so.max_preview_encoders,
                      "live-video encoders (a stream's side at a width) the process runs at once, whatever the viewers; "
                      "more are refused (503): each takes CPU from the cameras")
        ->default_str("16")->check(CLI::Range(1, 1024));
    serve->add_option("--host-threads", so.host_threads,
                      "decoder, encoder and CPU filter threads shared out among the streams (0 = one per core)")
        ->check(CLI::Range(0, 4096));
    serve->add_option("--gpu-frames", so.gpu_frames,
                      "frames in flight on the GPU shared out among the streams, 2 to 6 each (a stream's gpu-streams "
                      "field overrides its share)")
        ->default_str("24")->check(CLI::Range(2, 1024));
    serve->add_option("--batch-wait", so.batch_wait_ms,
                      "milliseconds a GPU frame may wait for frames of other streams with the same filters and size, "
                      "to be filtered in one launch with them (streams in step go at once; 0 = every frame launches alone, "
                      "the default: fewer launches, not more frames a second, and the wait costs latency under load)")
        ->default_str("0")->check(CLI::Range(0.0, 100.0));
    serve->add_option("--gpus", so.gpus, "GPUs to place GPU streams on, fewest streams first: all, or numbers such as 0,1")
        ->default_str("all");
    std::string decoder_placement = "nvdec";
    serve->add_option("--decoder-placement", decoder_placement,
                      "where GPU streams with hwdec auto decode: nvdec (every one that NVDEC can), or load (NVDEC until "
                      "it is half full, then NVDEC or the CPU decoders, whichever is less loaded: more cameras, but a batch "
                      "of files ends later: docs/benchmarks.md)")
        ->default_str("nvdec")->check(CLI::IsMember({"nvdec", "load"}));
    std::string decoder_moves = "on";
    serve->add_option("--decoder-moves", decoder_moves,
                      "with --decoder-placement load: when streams leave and NVDEC and the CPU decoders are left "
                      "lopsided, move running streams to the other side at their next key frame, no frame lost "
                      "(on), or leave every stream where it started (off): docs/serve.md")
        ->default_str("on")->check(CLI::IsMember({"on", "off"}));
    serve->add_option("--nvdec-capacity", so.nvdec_capacity,
                      "1080p30 camera streams (H.264, about 4 Mb/s) one GPU's NVDEC decodes in real time with the filters "
                      "running, for the capacity GET /streams and /metrics report and for --decoder-placement load "
                      "(0 = measured for each GPU from NVML's NVDEC utilisation while streams decode; 175, an H100's, "
                      "until then)")
        ->default_str("0")->check(CLI::Range(0.0, 100000.0));
    serve->add_option("--cpu-decode-capacity", so.cpu_decode_capacity,
                      "the same for the CPU decoders (0 = 2.5 for each core beyond two, less one for each stream that "
                      "encodes on the CPU and, for each stream decoding on NVDEC, whose waits take CPU, 0.036 through FFmpeg's "
                      "decoder or 0.021 through vfilter's)")
        ->default_str("0")->check(CLI::Range(0.0, 100000.0));
    serve->add_option("--nvdec-slots", so.nvdec_slots,
                      "NVDEC decoders of a GPU that decode at once, the others sleeping their turn, and new NVDEC decoders "
                      "created one at a time (0 = no gate: every decoder calls the driver, whose waits poll). Less CPU a "
                      "frame and at start-up, but decoders started under load start later: docs/serve.md")
        ->default_str("0")->check(CLI::Range(0, 4096));
    std::string nvdec_share = "off";
    serve->add_option("--nvdec-share", nvdec_share,
                      "on: H.264 streams decode on NVDEC through vfilter's decoder (nvdec-decoder: vfilter), streams of one "
                      "size sharing a GPU's decoders, two or three a decoder: fewer decoders for the driver to create one at "
                      "a time, so many cameras start sooner; a file whose decoder is not made yet decodes on the CPU meanwhile "
                      "(hwdec: auto): docs/serve.md")
        ->default_str("off")->check(CLI::IsMember({"on", "off"}));
    std::string serve_shard = "0/1";
    serve->add_option("--shard", serve_shard,
                      "INDEX/COUNT: run only the file's streams of this shard (assigned by name; going from N to N+1 "
                      "shards moves only the streams the new shard takes); INDEX may be a StatefulSet pod's name "
                      "(vfilter-3: its ordinal, 3)")
        ->default_str("0/1");
    serve->add_option("--shard-plan", so.shard_plan,
                      "print each stream's shard (0 to COUNT-1) for COUNT shards, one \"name shard\" per line, and "
                      "exit: which pod serves a camera, and what moves when the count changes")
        ->check(CLI::Range(1, 100000));
    serve->add_option("--watch-config", so.watch_config_s,
                      "look at the file every SECONDS and apply it, as SIGHUP does, when its content changed "
                      "(for a mounted Kubernetes ConfigMap; 0 = only on SIGHUP)")
        ->default_str("0")->check(CLI::Range(0.0, 86400.0))->envname("VFILTER_WATCH_CONFIG");
    serve->add_option("--peers", so.peers,
                      "the other shards' API addresses, comma separated: http://HOST:PORT (https://HOST:PORT with "
                      "--tls-cert), or dns:NAME:PORT for every address NAME resolves to (a StatefulSet's headless Service; "
                      "over HTTPS with --tls-cert, each certificate naming NAME); then any process answers for the "
                      "fleet (GET /streams?scope=fleet, the page) and passes requests for another shard's stream to it")
        ->envname("VFILTER_PEERS");
    serve->add_option("--api-state", so.api_state,
                      "keep the streams added, removed and re-filtered through the API in this file, so that they stay "
                      "so when serve restarts (without it they last until serve stops; the config file's edits win)")
        ->envname("VFILTER_API_STATE");
    serve->add_option("--stats-json", so.stats_json, "write every stream's summary as one JSON object at the end");
    std::string serve_min_free;
    serve->add_option("--min-free", serve_min_free,
                      "keep this much of each disk recordings go to free (5% of it, or a size such as 20G): below it, the "
                      "oldest finished --segment recordings of any stream on that disk are deleted first")
        ->envname("VFILTER_MIN_FREE");
    serve->add_flag("-v,--verbose", verbose, "more log output");
    serve->add_flag("-q,--quiet", quiet, "errors only");
    serve->add_option("--log-format", log_format, "text or json (one object per line)")->check(CLI::IsMember({"text", "json"}));

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
    b.device = bench_device == "cuda" ? DeviceChoice::Cuda : DeviceChoice::Cpu;
    for (auto [text, floor] : {std::pair{&min_free, &o.min_free}, std::pair{&serve_min_free, &so.min_free}}) {
        if (text->empty() || parse_free_space_floor(*text, floor)) continue;
        std::fprintf(stderr, "vfilter: error: --min-free '%s': expected a share of the disk such as 5%% or a size such as 20G\n",
                     text->c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
        return cmd;
    }
    o.verbosity = quiet ? -1 : (very_verbose ? 2 : (verbose ? 1 : 0));
    o.log_format = log_format == "json" ? LogFormat::Json : LogFormat::Text;
    o.progress = !no_progress && !quiet;
    const bool two_outputs = !output_last.empty() && !o.output.path.empty();
    if (o.output.path.empty()) o.output.path = output_last;
    if (list) cmd.kind = Command::ListFilters;
    else if (list_kernels) cmd.kind = Command::ListKernels;
    else if (bench->parsed()) cmd.kind = Command::Bench;
    else if (health->parsed()) cmd.kind = Command::Health;
    else if (serve->parsed()) {
        so.decoders_by_load = decoder_placement == "load";
        so.decoder_moves = decoder_moves == "on";
        so.nvdec_share = nvdec_share == "on";
        std::string why;
        if (so.config.empty() == (so.demo_streams == 0))
            why = so.config.empty() ? "serve needs --config FILE (or --demo to try it with built-in pictures, no camera needed)"
                                    : "--demo runs streams of its own: leave out --config";
        if (!why.empty() || !parse_shard(serve_shard, &so.shard_index, &so.shard_count, &why)) {
            std::fprintf(stderr, "vfilter: error: %s\n", why.c_str());
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
        } else {
            cmd.kind = Command::Serve;
        }
    }
    else if (batch->parsed()) {
        std::string why;
        if (!parse_shard(shard, &bo.shard_index, &bo.shard_count, &why)) {
            std::fprintf(stderr, "vfilter: error: %s\n", why.c_str());
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
        } else if (!o.output.path.empty()) {
            std::fprintf(stderr, "vfilter: error: batch names its outputs after its inputs in --out-dir; leave out -o\n");
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
        } else {
            cmd.kind = Command::Batch;
        }
    } else if (two_outputs) {
        std::fprintf(stderr, "vfilter: error: two outputs given ('%s' with -o and '%s' last); give one\n",
                     redact_credentials(o.output.path).c_str(), redact_credentials(output_last).c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
    } else if (o.output.path.empty()) {
        std::fprintf(stderr, "vfilter: error: no output given: use --out FILE (or --out null to discard) (see vfilter --help)\n");
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
    }
    return cmd;
}

}  // namespace vf
