// vfilter's entry point: parse the command line, run, print the summary, and map failures to
// the exit codes documented in docs/exit-codes.md.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli/batch.hpp"
#include "app/cli/cli.hpp"
#include "app/run/input_wait.hpp"
#include "app/run/retention_keeper.hpp"
#include "encode/output_target.hpp"
#include "app/run/job.hpp"
#include "app/run/stop_signals.hpp"
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

// Ctrl-C and SIGTERM: app/run/stop_signals.hpp (first: finish the output; second: at once; third: leave).
int run(const vf::RunOptions& options, const vf::ProcessOptions& process, vf::RunningJob& running) {
    // --segment recordings: retention and the free-space floor, applied while the job records.
    std::shared_ptr<vf::RecordingRetention> retention;
    std::unique_ptr<vf::RetentionKeeper> keeper;
    const vf::RunOutput& out = options.output;
    if (process.min_free.set() && out.segment_s <= 0)
        vf::fail(vf::ErrorCategory::Usage, "--min-free deletes old --segment recordings: add --segment SECONDS");
    if (out.segment_s > 0 && (out.retain_s || out.retain_bytes || process.min_free.set()) &&
        vf::output_kind(out.path) == vf::OutputKind::File) {
        retention = std::make_shared<vf::RecordingRetention>(
            "", vf::segment_pattern(out.path), vf::RetentionLimits{out.retain_s.value_or(0), out.retain_bytes.value_or(0)});
        keeper = std::make_unique<vf::RetentionKeeper>(process.min_free);
        keeper->add(retention);
    }
    const std::unique_ptr<vf::Job> made =
        vf::make_job_when_input_opens(options, vf::single_run_reports(process), options.input.wait_for_input.value_or(false),
                                      running.stop_flag(), [](const vf::InputWait&) {});
    if (!made) {
        spdlog::warn("stopped while waiting for the input; nothing was written");
        return 130;
    }
    vf::Job& job = *made;
    const vf::JobResult r = [&] {
        vf::RunningJobScope scope(running, job);
        return job.run();
    }();
    if (process.verbosity >= 0) std::fputs(vf::redact_credentials(vf::format_summary(r.stats)).c_str(), stderr);
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
    vf::setup_logging(cmd.process.verbosity, cmd.process.log_format);
    vf::route_ffmpeg_logs_to_spdlog(cmd.process.verbosity);
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
            return vf::run_with_stop_signals(
                [&](vf::RunningJob& running) { return vf::run_batch(cmd.batch, cmd.run, cmd.process, running); });
        default:
            return vf::run_with_stop_signals([&](vf::RunningJob& running) { return run(cmd.run, cmd.process, running); });
        }
    } catch (const vf::Error& e) {
        spdlog::error("{}{}", e.what(), container_hint(e));
        return vf::exit_code_for(e.category());
    } catch (const std::exception& e) {
        spdlog::error("internal error: {}", e.what());
        return 1;
    }
}
