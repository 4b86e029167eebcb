#include "app/serve/http/fleet_events.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "app/serve/fleet/fleet.hpp"
#include "app/serve/serve_config.hpp"

namespace vf {

std::string peer_events_target(const EventQuery& q) {
    std::string target = "/events?limit=" + std::to_string(q.limit);
    // Names are A-Z a-z 0-9 _ - (checked at the door) and kinds are words: nothing to encode.
    if (q.stream) target += "&stream=" + *q.stream;
    if (q.kind) target += std::string("&kind=") + watch::condition_name(*q.kind);
    if (q.since_unix > 0) {
        char since[32];
        std::snprintf(since, sizeof since, "%.3f", q.since_unix);
        target += std::string("&since=") + since;
    }
    return target;
}

namespace {

// An event's JSON is under 300 bytes (a stream name of at most 64 characters): room for twice that.
constexpr size_t kPeerBytesAnEvent = 600;

// 9999-12-31T23:59:59Z: later than any event's time, and a time a page's Date can still show.
constexpr double kLatestUnixTime = 253402300799;

bool unix_time(const nlohmann::json& v) { return v.is_number() && v.get<double>() >= 0 && v.get<double>() <= kLatestUnixTime; }

bool condition_word(const nlohmann::json& v) {
    if (!v.is_string()) return false;
    for (const watch::Condition c : watch::kConditions)
        if (v.get<std::string>() == watch::condition_name(c)) return true;
    return false;
}

}  // namespace

nlohmann::json peer_events(const nlohmann::json& list, int shard, size_t limit) {
    nlohmann::json out = nlohmann::json::array();
    if (!list.is_array()) return out;
    // A shard answers oldest first within the limit it was asked: more than that is not its answer.
    for (size_t i = list.size() > limit ? list.size() - limit : 0; i < list.size(); ++i) {
        const nlohmann::json& e = list[i];
        if (!e.is_object() || !e.contains("time") || !unix_time(e["time"]) || !e.contains("id") || !e["id"].is_number_unsigned() ||
            !e.contains("stream") || !e["stream"].is_string() || !valid_stream_name(e["stream"].get<std::string>()) ||
            !e.contains("kind") || !condition_word(e["kind"]) || !e.contains("change") ||
            (e["change"] != "entered" && e["change"] != "left") || (e.contains("value") && !e["value"].is_number() && !e["value"].is_null()))
            continue;
        nlohmann::json kept = {{"id", e["id"]},        {"stream", e["stream"]}, {"kind", e["kind"]},
                               {"change", e["change"]}, {"time", e["time"]},     {"value", e.value("value", nlohmann::json())},
                               {"shard", shard}};
        if (e.contains("since") && unix_time(e["since"])) kept["since"] = e["since"];
        out.push_back(std::move(kept));
    }
    return out;
}

nlohmann::json fleet_events(Fleet& fleet, const EventQuery& q, const nlohmann::json& mine, uint64_t my_last_id) {
    const int self = fleet.shard_index();
    nlohmann::json events = nlohmann::json::array(), shards = nlohmann::json::array(), unreachable = nlohmann::json::array();
    const auto take = [&events, &q](const nlohmann::json& list, int shard) {
        for (nlohmann::json& e : peer_events(list, shard, q.limit)) events.push_back(std::move(e));
    };
    std::map<int, nlohmann::json> answers = fleet.has_peers() ? fleet.ask_every_shard(peer_events_target(q), kPeerBytesAnEvent * q.limit + 4096) : std::map<int, nlohmann::json>();
    for (int k = 0; k < fleet.shard_count(); ++k) {
        if (k == self) {
            take(mine, k);
            shards.push_back({{"index", k}, {"reachable", true}, {"self", true}, {"last_id", my_last_id}});
            continue;
        }
        const auto it = answers.find(k);
        const bool answered = it != answers.end() && it->second.is_object() && it->second.contains("events") && it->second["events"].is_array();
        nlohmann::json entry = {{"index", k}, {"reachable", answered}};
        if (answered) {
            take(it->second["events"], k);
            if (it->second.contains("last_id") && it->second["last_id"].is_number_unsigned()) entry["last_id"] = it->second["last_id"];
        } else {
            unreachable.push_back(k);
        }
        shards.push_back(std::move(entry));
    }
    std::sort(events.begin(), events.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::make_tuple(a["time"].get<double>(), a["shard"].get<int>(), a["id"].get<uint64_t>()) <
               std::make_tuple(b["time"].get<double>(), b["shard"].get<int>(), b["id"].get<uint64_t>());
    });
    if (events.size() > q.limit) events.erase(events.begin(), events.end() - static_cast<std::ptrdiff_t>(q.limit));
    return {{"events", events}, {"shards", shards}, {"unreachable", unreachable}};
}

}  // namespace vf
