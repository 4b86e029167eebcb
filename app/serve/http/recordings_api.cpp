#include "app/serve/http/recordings_api.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "app/serve/fleet/fleet.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "app/serve/service_error.hpp"
#include "common/http_wire.hpp"
#include "encode/clip_file.hpp"
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
            // A peer's entry of another shape than local_recordings() makes is left out, not the list.
            const auto number_or_absent = [&r](const char* key) { return !r.contains(key) || r[key].is_number(); };
            if (!r.is_object() || !r.contains("file") || !r["file"].is_string() || !number_or_absent("bytes") ||
                !number_or_absent("modified") || (r.contains("clip") && !r["clip"].is_boolean()))
                continue;
            nlohmann::json& entry = by_file[r["file"].get<std::string>()];
            if (entry.is_null()) {
                entry = {{"file", r["file"]}, {"bytes", r.value("bytes", nlohmann::json(0))}, {"modified", r.value("modified", nlohmann::json(0))},
                         {"shards", nlohmann::json::array()}};
                if (r.value("clip", false)) entry["clip"] = true;
            }
            entry["shards"].push_back(shard);
        }
    nlohmann::json out = nlohmann::json::array();
    for (auto& [file, entry] : by_file) out.push_back(std::move(entry));
    std::sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) { return a["modified"] > b["modified"]; });
    return out;
}

}  // namespace

RecordingsSource recordings_source(const StreamConfig& s) {
    RecordingsSource source;
    source.output = s.options.output.path;
    source.segmented = s.options.output.segment_s > 0;
    if (s.clips.enabled()) source.clips = clips_folder(s.options.output.path, s.name), source.clips_only = s.clips.only;
    return source;
}

nlohmann::json local_recordings(const RecordingsSource& source) {
    nlohmann::json list = nlohmann::json::array();
    if (output_kind(source.output) != OutputKind::File || source.output == "null") return list;
    // The newest kRecordingsListed of each kind, found without holding the folder's whole list
    // (it may hold months of segments).
    FileSelection recordings(kRecordingsListed, FileSelection::Keep::Newest), clips(kRecordingsListed, FileSelection::Keep::Newest);
    if (source.clips_only) {
    } else if (source.segmented) {
        SegmentSeries(segment_pattern(source.output)).for_each_file([&](SegmentFile&& f) { recordings.offer(std::move(f)); });
    } else {
        std::error_code e;
        const auto status = std::filesystem::symlink_status(source.output, e);
        if (!e && std::filesystem::is_regular_file(status))
            recordings.offer({source.output, static_cast<int64_t>(std::filesystem::file_size(source.output, e)),
                              std::filesystem::last_write_time(source.output, e)});
    }
    // Clips: only names of the clip series (never anything else in that folder), given below the
    // recordings' folder.
    if (!source.clips.empty()) SegmentSeries::clips(source.clips).for_each_file([&](SegmentFile&& f) { clips.offer(std::move(f)); });
    std::vector<std::pair<SegmentFile, bool>> all;
    for (SegmentFile& f : recordings.take()) all.emplace_back(std::move(f), false);
    for (SegmentFile& f : clips.take()) all.emplace_back(std::move(f), true);
    // Newest first (by last write, then by name): the first kRecordingsListed of the two lists
    // merged are the newest of both kinds together.
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return written_before(b.first, a.first); });
    if (all.size() > kRecordingsListed) all.resize(kRecordingsListed);
    for (const auto& [f, clip] : all) {
        const std::filesystem::path p(f.path);
        nlohmann::json entry = {{"file", clip ? "clips/" + p.parent_path().filename().string() + "/" + p.filename().string() : p.filename().string()},
                                {"bytes", f.bytes}, {"modified", unix_seconds(f.written)}};
        if (clip) entry["clip"] = true;
        list.push_back(std::move(entry));
    }
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
