// vfilter's entry point: parse the command line, run, print the summary, and map failures to
// the exit codes documented in docs/exit-codes.md.
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "app/batch.hpp"
#include "app/cli.hpp"
#include "app/job.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "common/logging.hpp"
#include "config/filter_registry.hpp"
#include "media/av_helpers.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda/dispatch_table.hpp"
#endif

namespace vf {
int run_bench(const BenchOptions& options);
int run_health_check();
}

namespace {

std::atomic<vf::Job*> g_job{nullptr};
volatile std::sig_atomic_t g_signals = 0;

// First Ctrl-C/SIGTERM: stop reading, drain what is in flight, finish the output, exit 0.
// Second: discard what is in flight and finish the output now (exit 130). Third: leave at once.
// While the job is still opening its input and output, the first signal is held until the job
// exists (run() applies it), so the output opened meanwhile is finished rather than cut off;
// a second one during the opening leaves at once (exit 130).
void on_signal(int) {
    const int n = ++g_signals;
    vf::Job* job = g_job.load();
    if (n > 2 || (n > 1 && !job)) _exit(130);
    if (!job) {
        static const char kHeld[] = "vfilter: stopping once the input and output are open (Ctrl-C again to leave now)\n";
        (void)!write(STDERR_FILENO, kHeld, sizeof kHeld - 1);  // write(2) is async-signal-safe; spdlog is not
        return;
    }
    if (n == 1) job->interrupt();
    else job->abandon();
}

// In the container (VFILTER_CONTAINER is set by docker/Dockerfile) a missing file or GPU is
// usually a missing mount or flag: say which.
std::string container_hint(const vf::Error& e) {
    if (!std::getenv("VFILTER_CONTAINER")) return "";
    const std::string what = e.what();
    const bool missing = what.find("No such file or directory") != std::string::npos;
    const bool denied = what.find("Permission denied") != std::string::npos;
    if (e.category() == vf::ErrorCategory::Device)
        return " (in a container: run it with --gpus all and the NVIDIA Container Toolkit installed, or pass --device cpu)";
    if (e.category() == vf::ErrorCategory::Input && missing && what.find("/dev/video") != std::string::npos)
        return " (in a container: pass the camera with --device /dev/videoN)";
    if ((e.category() == vf::ErrorCategory::Input || e.category() == vf::ErrorCategory::Output) && (missing || denied))
        return " (in a container: mount the folder, e.g. -v \"$PWD:/data\", writable by uid 10001 for outputs)";
    return "";
}

int run(const vf::RunOptions& options) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    vf::Job job(options);
    g_job = &job;
    if (g_signals > 0) job.interrupt();  // a signal that came while the job was opening
    const vf::JobResult r = job.run();
    g_job = nullptr;
    if (options.verbosity >= 0) std::fputs(vf::redact_credentials(vf::format_summary(r.stats)).c_str(), stderr);
    if (r.abandoned) {
        spdlog::warn("stopped at once: frames in flight were discarded; the output holds the {} frames written",
                     r.stats.frames_out);
        return 130;
    }
    if (r.interrupted) spdlog::warn("interrupted: the output holds the {} frames processed", r.stats.frames_out);
    if (r.damaged) {
        spdlog::error("input damaged: {}; the output holds the {} frames that decoded", r.stats.damage,
                      r.stats.frames_out);
        return vf::exit_code_for(vf::ErrorCategory::Damaged);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    vf::Command cmd = vf::parse_command_line(argc, argv);
    if (cmd.kind == vf::Command::Exit) return cmd.exit_code;
    vf::setup_logging(cmd.run.verbosity, cmd.run.log_format);
    vf::route_ffmpeg_logs_to_spdlog(cmd.run.verbosity);
    try {
        switch (cmd.kind) {
        case vf::Command::ListFilters:
            std::fputs(vf::describe_filters().c_str(), stdout);
            return 0;
        case vf::Command::ListKernels:
#ifdef VF_HAVE_CUDA
            std::fputs(vf::cuda::describe_dispatch_table().c_str(), stdout);
            return 0;
#else
            std::fputs("this vfilter was built without CUDA (no nvcc at configure time): it has no GPU kernels\n", stderr);
            return 1;
#endif
        case vf::Command::Bench:
            return vf::run_bench(cmd.bench);
        case vf::Command::Health:
            return vf::run_health_check();
        case vf::Command::Serve:
            return vf::run_serve(cmd.serve);
        case vf::Command::Batch:
            std::signal(SIGINT, on_signal);
            std::signal(SIGTERM, on_signal);
            return vf::run_batch(
                cmd.batch, cmd.run,
                [](vf::Job* job) {
                    g_job = job;
                    if (job && g_signals > 0) job->interrupt();  // a signal that came while it was opening
                },
                [] { return g_signals > 0; });
        default:
            return run(cmd.run);
        }
    } catch (const vf::Error& e) {
        spdlog::error("{}{}", e.what(), container_hint(e));
        return vf::exit_code_for(e.category());
    } catch (const std::exception& e) {
        spdlog::error("internal error: {}", e.what());
        return 1;
    }
}
