#include "app/cli/cli.hpp"
#include "app/cli/ffmpeg_command.hpp"
#include "app/cli/ffmpeg_words.hpp"
#include "app/run/stream_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "common/redact.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

Command parse_command_line(int argc, char** argv) {
    if (const auto ffmpeg_args = ffmpeg_command_args(argc, argv)) return parse_ffmpeg_command(*ffmpeg_args);
    Command cmd;
    RunOptions& o = cmd.run;
    ProcessOptions& p = cmd.process;
    CLI::App app{"vfilter: real-time video filtering (convolutions on CPU or GPU) on files, cameras and streams.\n"
                 "Example: vfilter --input cam.mp4 --filter sobel --out edges.mp4"};
    app.set_version_flag("--version", "vfilter 0.1.0");
    app.footer("vfilter ffmpeg ARGS... runs an ffmpeg command line unchanged (vfilter ffmpeg --help)");
    bool list = false, verbose = false, very_verbose = false, quiet = false, no_progress = false;
    std::string log_format = "text";
    std::string output_last;
    add_stream_options(app, o);
    // Not named "output": newer CLI11 refuses a positional named like the --output option.
    app.add_option("OUTFILE", output_last, "the output may also come last without -o, as with ffmpeg");
    app.add_option("--metrics-port", p.metrics.port, "serve Prometheus metrics at http://BIND:PORT/metrics")
        ->check(CLI::Range(0, 65535))->envname("VFILTER_METRICS_PORT");
    app.add_option("--metrics-bind", p.metrics.bind, "address for --metrics-port")->default_str("127.0.0.1")
        ->envname("VFILTER_METRICS_BIND");
    app.add_option("--stats-json", p.stats_json, "write the run summary as JSON to this file");
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
                 "SIGHUP re-reads the file. Where each stream decodes, threads and frames in flight are chosen by "
                 "serve; the file's serve: block holds the rarer settings (docs/serve.md)");
    ServeOptions& so = cmd.serve;
    serve->add_option("--config", so.config, "YAML file: a streams: list, a defaults: block and a serve: block");
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
                      "a file (serve: api-token-file, VFILTER_API_TOKEN_FILE), since a command line shows in ps")
        ->envname("VFILTER_API_TOKEN");
    CLI::Option* tls_cert = serve->add_option("--tls-cert", so.tls_cert,
                      "PEM certificate of the API (and any intermediate CA's after it): the API port then speaks HTTPS "
                      "only (TLS 1.2 and later), and --peers are called over HTTPS; with --tls-key")
        ->envname("VFILTER_TLS_CERT");
    CLI::Option* tls_key = serve->add_option("--tls-key", so.tls_key, "PEM private key of --tls-cert (no passphrase)")
        ->envname("VFILTER_TLS_KEY");
    tls_cert->needs(tls_key);
    tls_key->needs(tls_cert);
    serve->add_option("--gpus", so.gpus, "GPUs to place GPU streams on, fewest streams first: all, or numbers such as 0,1")
        ->default_str("all");
    std::string serve_shard = "0/1";
    serve->add_option("--shard", serve_shard,
                      "INDEX/COUNT: run only the file's streams of this shard (assigned by name; going from N to N+1 "
                      "shards moves only the streams the new shard takes); INDEX may be a StatefulSet pod's name "
                      "(vfilter-3: its ordinal, 3)")
        ->default_str("0/1");
    serve->add_option("--peers", so.peers,
                      "the other shards' API addresses, comma separated: http://HOST:PORT (https://HOST:PORT with "
                      "--tls-cert), or dns:NAME:PORT for every address NAME resolves to (a StatefulSet's headless Service; "
                      "over HTTPS with --tls-cert, each certificate naming NAME); then any process answers for the "
                      "fleet (GET /streams?scope=fleet, the page) and passes requests for another shard's stream to it")
        ->envname("VFILTER_PEERS");
    serve->add_option("--store", so.store,
                      "etcd's client URLs, comma separated (http://HOST:2379,...): shards hold leases there, and a lost "
                      "shard's cameras move to the live ones within the lease time (serve: store-lease), and back when it "
                      "returns (docs/kubernetes.md, \"Failover\"); without it each shard serves its own streams only")
        ->envname("VFILTER_STORE");
    serve->add_flag("-v,--verbose", verbose, "more log output");
    serve->add_flag("-q,--quiet", quiet, "errors only");
    serve->add_option("--log-format", log_format, "text or json (one object per line)")->check(CLI::IsMember({"text", "json"}));
    CLI::App* shard_plan = serve->add_subcommand(
        "shard-plan", "print each stream of --config's shard (0 to COUNT-1) for COUNT shards, one \"name shard\" per "
                      "line, and exit: which pod serves a camera, and what moves when the count changes");
    shard_plan->add_option("COUNT", so.shard_plan, "the number of shards")->required()->check(CLI::Range(1, 100000));
    shard_plan->fallthrough();

    CLI::App* health = app.add_subcommand(
        "health", "container health check: asks the metrics endpoint of a running vfilter (VFILTER_METRICS_PORT) "
                  "whether its input is up; exit 0 when it is, or when no endpoint is configured");

    // ffmpeg's spellings of the filter option, which CLI11 cannot declare (one dash, two letters);
    // ffmpeg's other options refused by name before CLI11 could misread them ("-f rames:v").
    std::vector<std::string> words(argv, argv + argc);
    for (size_t i = 1; i < words.size() && words[i] != "--"; ++i) {
        if (words[i] == "-vf" || words[i] == "-filter:v") words[i] = "--filter";
        if (const std::string why = ffmpeg_option_error(words[i]); !why.empty()) {
            std::fprintf(stderr, "vfilter: error: %s\n", redact_credentials(why).c_str());
            cmd.kind = Command::Exit;
            cmd.exit_code = 2;
            return cmd;
        }
    }
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
    if (!min_free.empty() && !parse_free_space_floor(min_free, &p.min_free)) {
        std::fprintf(stderr, "vfilter: error: --min-free '%s': expected a share of the disk such as 5%% or a size such as 20G\n",
                     min_free.c_str());
        cmd.kind = Command::Exit;
        cmd.exit_code = 2;
        return cmd;
    }
    p.verbosity = quiet ? -1 : (very_verbose ? 2 : (verbose ? 1 : 0));
    p.log_format = log_format == "json" ? LogFormat::Json : LogFormat::Text;
    p.progress = !no_progress && !quiet;
    const bool two_outputs = !output_last.empty() && !o.output.path.empty();
    if (o.output.path.empty()) o.output.path = output_last;
    if (list) cmd.kind = Command::ListFilters;
    else if (list_kernels) cmd.kind = Command::ListKernels;
    else if (bench->parsed()) cmd.kind = Command::Bench;
    else if (health->parsed()) cmd.kind = Command::Health;
    else if (serve->parsed()) {
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
