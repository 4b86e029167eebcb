#include "app/serve/http/recordings_api.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "app/serve/fleet/fleet.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "app/serve/service_error.hpp"
#include "common/http_wire.hpp"
#include "encode/output_target.hpp"
#include "encode/segment_series.hpp"

namespace vf {
namespace {

int64_t unix_seconds(std::filesystem::file_time_type t) {
    const auto system = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        t - std::filesystem::file_time_type::clock::now() + std::chrono::system_clock::now());
    return std::chrono::duration_cast<std::chrono::seconds>(system.time_since_epoch()).count();
}

HttpResponse json_reply(int status, const nlohmann::json& body) { return {status, "application/json", body.dump(2) + "\n"}; }

// Every shard's lists merged: one entry a file, with each shard that listed it, newest first.
nlohmann::json merged(const std::map<int, nlohmann::json>& lists) {
    std::map<std::string, nlohmann::json> by_file;
    for (const auto& [shard, list] : lists)
        for (const nlohmann::json& r : list) {
            if (!r.is_object() || !r.contains("file") || !r["file"].is_string()) continue;
            nlohmann::json& entry = by_file[r["file"].get<std::string>()];
            if (entry.is_null()) entry = {{"file", r["file"]}, {"bytes", r.value("bytes", 0)}, {"modified", r.value("modified", 0)},
                                          {"shards", nlohmann::json::array()}};
            entry["shards"].push_back(shard);
        }
    nlohmann::json out = nlohmann::json::array();
    for (auto& [file, entry] : by_file) out.push_back(std::move(entry));
    std::sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) { return a["modified"] > b["modified"]; });
    return out;
}

}  // namespace

nlohmann::json local_recordings(const RecordingsSource& source) {
    nlohmann::json list = nlohmann::json::array();
    if (output_kind(source.output) != OutputKind::File || source.output == "null") return list;
    std::vector<SegmentFile> files;
    if (source.segmented) {
        files = SegmentSeries(segment_pattern(source.output)).files();
    } else {
        std::error_code e;
        const auto status = std::filesystem::symlink_status(source.output, e);
        if (!e && std::filesystem::is_regular_file(status))
            files.push_back({source.output, static_cast<int64_t>(std::filesystem::file_size(source.output, e)),
                             std::filesystem::last_write_time(source.output, e)});
    }
    std::reverse(files.begin(), files.end());  // newest first
    if (files.size() > kRecordingsListed) files.resize(kRecordingsListed);
    for (const SegmentFile& f : files)
        list.push_back({{"file", std::filesystem::path(f.path).filename().string()}, {"bytes", f.bytes}, {"modified", unix_seconds(f.written)}});
    return list;
}

HttpResponse answer_recordings(const HttpRequest& req, const std::string& name, const RecordingsLookup& lookup, Fleet* fleet, int shard) {
    if (req.method != "GET" && req.method != "HEAD") return json_reply(405, {{"error", req.method + " /streams/NAME/recordings: use GET"}});
    std::string scope = "shard";
    for (const auto& [key, value] : query_pairs(req.query, 256)) {
        if (key != "scope") throw ServiceError(400, "unknown parameter: GET /streams/NAME/recordings takes scope=shard (the default) or scope=fleet");
        scope = value;
    }
    if (scope != "shard" && scope != "fleet") throw ServiceError(400, "scope=" + scope + ": expected shard or fleet");
    const std::optional<RecordingsSource> source = lookup ? lookup(name) : std::nullopt;
    if (!source) throw ServiceError(404, "no stream named '" + name + "' in the list");
    nlohmann::json mine = local_recordings(*source);
    if (scope == "shard" || !fleet || !fleet->has_peers() || !req.forwarded_by.empty()) {
        for (nlohmann::json& r : mine) r["shards"] = {shard};
        return json_reply(200, {{"stream", name}, {"recordings", mine}, {"unreachable", nlohmann::json::array()}});
    }
    std::map<int, nlohmann::json> lists = {{shard, mine}};
    nlohmann::json unreachable = nlohmann::json::array();
    for (auto& [k, answer] : fleet->ask_every_shard("/streams/" + name + "/recordings")) {
        if (answer.is_object() && answer.contains("recordings") && answer["recordings"].is_array())
            lists[k] = answer["recordings"];
        else
            unreachable.push_back(k);
    }
    return json_reply(200, {{"stream", name}, {"recordings", merged(lists)}, {"unreachable", unreachable}});
}

}  // namespace vf
