#include "app/cli/batch.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "app/run/job.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "encode/owned_files.hpp"

namespace vf {
namespace fs = std::filesystem;

namespace {

// --stats-json for a batch: one entry per file of the shard (its state and, when it ran, the run's
// own stats), rewritten after every file so that a killed batch leaves a true account.
class BatchReport {
public:
    BatchReport(std::string path, const BatchOptions& o) : path_(std::move(path)) {
        report_["shard"] = {{"index", o.shard_index}, {"count", o.shard_count}};
        report_["list"] = o.list;
        report_["files"] = nlohmann::json::array();
    }
    // state: filtered, complete (skipped), damaged, failed or stopped.
    void add(const BatchItem& item, const std::string& state, int exit_code, const std::string& error,
             const std::string& run_stats_path) {
        nlohmann::json f = {{"input", item.input}, {"output", item.output}, {"state", state}, {"exit_code", exit_code}};
        if (!error.empty()) f["error"] = error;
        std::ifstream in(run_stats_path);
        if (!run_stats_path.empty() && in) {  // empty when the run failed before it started
            nlohmann::json stats = nlohmann::json::parse(in, nullptr, false);
            if (stats.is_object()) f["stats"] = std::move(stats);
        }
        std::error_code ec;
        if (!run_stats_path.empty()) fs::remove(run_stats_path, ec);
        report_["files"].push_back(std::move(f));
        write();
    }
    void write() const {
        if (path_.empty()) return;
        const std::string tmp = path_ + ".tmp";
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << redact_credentials(report_.dump(2)) << "\n";
            if (!out) fail(ErrorCategory::Output, "writing --stats-json file '" + path_ + "' failed");
        }
        std::error_code ec;
        fs::rename(tmp, path_, ec);
        if (ec) fail(ErrorCategory::Output, "writing --stats-json file '" + path_ + "' failed: " + ec.message());
    }

private:
    std::string path_;
    nlohmann::json report_;
};

}  // namespace

bool parse_shard(const std::string& text, int* index, int* count, std::string* why) {
    const size_t slash = text.rfind('/');
    std::string index_text = slash == std::string::npos ? text : text.substr(0, slash);
    // A StatefulSet pod's name (vfilter-3) stands for its ordinal, so a manifest can pass
    // $(POD_NAME)/COUNT.
    if (const size_t dash = index_text.rfind('-'); dash != std::string::npos && dash > 0 && dash + 1 < index_text.size())
        index_text = index_text.substr(dash + 1);
    int i = -1, n = -1;
    char rest = 0;
    if (slash == std::string::npos || index_text.empty() || index_text.find_first_not_of("0123456789") != std::string::npos ||
        std::sscanf((index_text + text.substr(slash)).c_str(), "%d/%d%c", &i, &n, &rest) != 2) {
        *why = "--shard '" + text + "': expected INDEX/COUNT, e.g. 0/4 (INDEX may be a StatefulSet pod's name, e.g. vfilter-0/4)";
        return false;
    }
    if (n < 1 || i < 0 || i >= n) {
        *why = "--shard '" + text + "': INDEX must be 0 to COUNT-1 and COUNT at least 1";
        return false;
    }
    *index = i;
    *count = n;
    return true;
}

std::string incomplete_name(const std::string& output) {
    const fs::path p(output);
    return (p.parent_path() / (p.stem().string() + ".incomplete" + p.extension().string())).string();
}

std::vector<BatchItem> plan_batch(const BatchOptions& o) {
    std::ifstream in(o.list);
    if (!in) fail(ErrorCategory::Usage, "batch: cannot read the list '" + o.list + "'");
    const fs::path base = fs::path(o.list).parent_path();
    std::vector<std::string> inputs;
    for (std::string line; std::getline(in, line);) {
        const size_t a = line.find_first_not_of(" \t\r");
        if (a == std::string::npos || line[a] == '#') continue;
        const size_t b = line.find_last_not_of(" \t\r");
        std::string entry = line.substr(a, b - a + 1);
        if (fs::path(entry).is_relative() && entry.find("://") == std::string::npos) entry = (base / entry).string();
        inputs.push_back(entry);
    }
    if (inputs.empty()) fail(ErrorCategory::Usage, "batch: the list '" + o.list + "' names no input");
    // Every output of the whole list, not only this shard's: two shards must never write one name.
    std::map<std::string, std::string> claimed;
    std::vector<BatchItem> items;
    for (size_t k = 0; k < inputs.size(); ++k) {
        const std::string output = (fs::path(o.out_dir) / (fs::path(inputs[k]).stem().string() + "." + o.out_ext)).string();
        const auto [it, fresh] = claimed.emplace(output, inputs[k]);
        if (!fresh)
            fail(ErrorCategory::Usage, "batch: '" + it->second + "' and '" + inputs[k] + "' would both write '" + output +
                                           "'; rename one, or filter them in separate batches");
        if (static_cast<int>(k % static_cast<size_t>(o.shard_count)) == o.shard_index) items.push_back({inputs[k], output});
    }
    return items;
}

int run_batch(const BatchOptions& o, const RunOptions& base, const ProcessOptions& process, RunningJob& running) {
    if (base.input.wait_for_input.value_or(false))
        fail(ErrorCategory::Usage, "--wait-for-input applies to a single run and to serve, not to batch: a batch reads files");
    if (process.min_free.set())
        fail(ErrorCategory::Usage, "--min-free applies to a single run's --segment recordings and to serve, not to batch");
    const std::vector<BatchItem> items = plan_batch(o);
    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (!fs::is_directory(o.out_dir)) fail(ErrorCategory::Output, "batch: cannot create the output folder '" + o.out_dir + "'");
    spdlog::info("batch: shard {}/{}: {} of the list's inputs", o.shard_index, o.shard_count, items.size());
    BatchReport report(process.stats_json, o);
    report.write();
    int done = 0, skipped = 0, failed = 0, first_failure = 0;
    // One GPU runtime for the whole batch: its page-locked memory and GPU state serve file after file.
    const auto runtime = std::make_shared<GpuRuntime>();
    for (const BatchItem& item : items) {
        if (running.stopping()) break;
        const std::string temp = incomplete_name(item.output);
        // A killed run's leftovers: never complete, redone from the start.
        fs::remove(temp, ec);
        fs::remove(temp + ".partial", ec);
        if (fs::exists(item.output) && !base.output.overwrite) {
            ++skipped;
            spdlog::info("batch: '{}' is complete: skipped", item.output);
            report.add(item, "complete", 0, "", "");
            continue;
        }
        RunOptions run = base;
        run.input.url = item.input;
        run.output.path = temp;
        run.output.overwrite = false;
        // Each file's job reports as a single run's, but its summary goes to a file of its own that
        // the batch's report takes in.
        JobReports reports = single_run_reports(process);
        reports.stats_json = process.stats_json.empty() ? "" : temp + ".stats.json";
        int code = 0;
        std::string state = "filtered", error;
        try {
            Job job(run, reports, runtime);
            const JobResult r = [&] {
                RunningJobScope scope(running, job);
                return job.run();
            }();
            if (r.interrupted || r.abandoned) {
                fs::remove(temp, ec);  // filtered in part: never under its final name
                spdlog::warn("batch: stopped in '{}': its output was not kept; a rerun filters it again", item.input);
                report.add(item, "stopped", 130, "", reports.stats_json);
                break;
            }
            if (r.damaged) {
                code = exit_code_for(ErrorCategory::Damaged);
                state = "damaged";
                error = r.stats.damage;
                spdlog::error("batch: '{}' is damaged ({}); its output holds the {} frames that decoded", item.input,
                              r.stats.damage, r.stats.frames_out);
            }
            // A file that appeared under the final name meanwhile is not replaced (without -y).
            const std::string kept = move_without_replacing(temp, item.output, base.output.overwrite);
            if (kept != item.output)
                fail(ErrorCategory::Output, "batch: '" + item.output + "' appeared while filtering and was not written by vfilter; "
                                            "it was left as it is and the output was kept as '" + kept + "'");
        } catch (const Error& e) {
            fs::remove(temp, ec);
            code = exit_code_for(e.category());
            state = "failed";
            error = e.what();
            spdlog::error("batch: '{}': {}", item.input, e.what());
        }
        report.add(item, state, code, error, reports.stats_json);
        if (code == 0) ++done;
        else ++failed, first_failure = first_failure ? first_failure : code;
    }
    const int left = static_cast<int>(items.size()) - done - skipped - failed;
    spdlog::info("batch: shard {}/{}: {} filtered, {} already complete, {} failed, {} left", o.shard_index, o.shard_count,
                 done, skipped, failed, left);
    if (left > 0) return 130;  // stopped by a signal: work remains
    return first_failure;
}

}  // namespace vf
