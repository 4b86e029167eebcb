// What belongs to the process rather than to any one stream: its log, its progress line, its
// metrics endpoint, its summary file and the free-space floor of its recordings. It is the third
// of the option scopes (docs/architecture.md, "Three option scopes"): what a user asks of a stream
// is RunOptions, filled through the option table (app/run/stream_options.cpp) by the command line,
// a serve config entry, an API request and Python's arguments; what serve decides for a stream is
// StreamPlacement; these are filled once by the command line (app/cli/cli.cpp), and serve's summary
// file and floor by its serve: block (ServeSettings). A stream entry that names one of them is
// refused, and told where it is set (where_process_option_is_set).
#pragma once

#include <string>

#include "common/logging.hpp"
#include "config/quantities.hpp"

namespace vf {

// A single run's /metrics, /healthz and /readyz (--metrics-port, --metrics-bind).
struct MetricsEndpoint {
    int port = -1;                    // < 0: none; 0: a free port, named in the log
    std::string bind = "127.0.0.1";
};

struct ProcessOptions {
    int verbosity = 0;                       // -1 quiet (errors only), 0 normal, 1 verbose, 2 trace
    LogFormat log_format = LogFormat::Text;
    bool progress = true;                    // a progress line on stderr while a run runs (never when quiet)
    MetricsEndpoint metrics;
    std::string stats_json;                  // the run's summary (batch: every file's) as JSON; empty: none
    FreeSpaceFloor min_free;                 // --segment recordings: the free space kept on their disks
};

// What one job reports beyond its JobResult, as the process running it decides. The default
// reports nothing: serve's streams (serve has its own summary and /metrics), the Python module
// (vfilter.run returns the summary) and tests.
struct JobReports {
    bool progress_line = false;
    std::string stats_json;                  // the job's summary as JSON; empty: none
    MetricsEndpoint metrics;                 // port < 0: none
};

// A single run's one job reports what the command line asked of the process.
inline JobReports single_run_reports(const ProcessOptions& p) {
    return {p.progress && p.verbosity >= 0, p.stats_json, p.metrics};
}

// Where a process option is set, by its command-line name without dashes ("stats-json"), for a
// stream entry or a Python argument that names one; nullptr for a name that is none.
const char* where_process_option_is_set(const std::string& name);

}  // namespace vf
