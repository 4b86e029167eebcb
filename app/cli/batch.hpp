// `vfilter batch`: filters a list of files into a folder, one shard of the list per process, so
// that Kubernetes' Indexed Jobs (or several processes on one machine) split a library between
// them. A rerun skips what is complete and redoes only what a killed run lost: a file appears
// under its final name only once it is completely filtered.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/run/process_options.hpp"
#include "app/run/stop_signals.hpp"
#include "config/options.hpp"

namespace vf {

class Job;

struct BatchOptions {
    std::string list;      // one input per line; '#' comments and blank lines skipped
    std::string out_dir;   // outputs: OUT_DIR/<input's name without extension>.<out_ext>
    std::string out_ext = "mp4";
    int shard_index = 0;   // this process takes the inputs whose position % shard_count == shard_index
    int shard_count = 1;
};

// "I/N" with 0 <= I < N, where I may also be a StatefulSet pod's name ending in -I; false with
// the reason otherwise.
bool parse_shard(const std::string& text, int* index, int* count, std::string* why);

struct BatchItem {
    std::string input;   // as listed; relative paths are relative to the list's folder
    std::string output;  // the final name
};

// The list's entries this shard takes, with their outputs. Throws Usage for an unreadable list, an
// empty one, or two inputs that would write the same output.
std::vector<BatchItem> plan_batch(const BatchOptions& options);

// Where an output is written until it is complete (the container is still named by its extension).
std::string incomplete_name(const std::string& output);

// Runs this shard's items one after another with `base`'s options; `process`'s --stats-json is
// the batch's report, its progress line and metrics endpoint those of each file's job. `running`
// is told the job running (nullptr between jobs), so a stop signal reaches it; no item starts once
// a stop has been asked for. Returns the exit code (docs/exit-codes.md, "vfilter batch").
int run_batch(const BatchOptions& options, const RunOptions& base, const ProcessOptions& process, RunningJob& running);

}  // namespace vf
