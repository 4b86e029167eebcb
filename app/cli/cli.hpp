// The command line: `vfilter [options]` runs a job, `vfilter bench [options]` times filters,
// `vfilter batch --list FILE --out-dir DIR [options]` filters a list of files, `vfilter serve
// --config FILE` runs many streams in one process.
#pragma once

#include <string>
#include <vector>

#include "app/cli/batch.hpp"
#include "app/run/process_options.hpp"
#include "app/serve/serve_command.hpp"
#include "config/options.hpp"

namespace vf {

struct BenchOptions {
    std::vector<std::string> sizes = {"1920x1080"};
    std::vector<std::string> filters;  // empty: the standard set
    int repeat = 30;
    int threads = 0;
    std::string json;
    DeviceChoice device = DeviceChoice::Cpu;  // cpu or cuda
    bool pipeline = false;  // the GPU stage alone (frames in page-locked memory), overlap measured
    int frames = 300;
    int gpu_streams = 6;
    std::vector<int> batches;  // --batch: with --pipeline, kernel time per frame at these frames a launch
};

struct Command {
    enum Kind { Run, Bench, Batch, Serve, ListFilters, ListKernels, Health, Exit } kind = Run;
    int exit_code = 0;  // for Exit (help, version, parse errors)
    RunOptions run;          // the stream of a single run (batch: of every file)
    ProcessOptions process;  // the log (every command's); a single run's and batch's progress, metrics, summary, floor
    BenchOptions bench;
    BatchOptions batch;  // with `run` as the options of every file
    ServeOptions serve;
};

Command parse_command_line(int argc, char** argv);

}  // namespace vf
