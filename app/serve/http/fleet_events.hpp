// GET /events?scope=fleet (docs/serve.md, "A fleet of serve processes"): every shard's recent
// events in one list, the way GET /streams?scope=fleet lists every shard's streams. The other
// shards are asked at once (Fleet::ask_every_shard: signed, bounded in time and bytes) for their
// own events matching the same stream, kind and since; each event carries the shard that logged
// it (each shard numbers its own), the newest `limit` of them are kept, oldest first, and a shard
// that gave no answer is listed as unreachable rather than failing the request. A peer's events
// are taken only in the documented shape (peer_events): its answer goes on to pages.
#pragma once

#include <nlohmann/json.hpp>

#include "app/serve/watch/event_log.hpp"

namespace vf {

class Fleet;

// {"events": [...with "shard"], "shards": [{"index", "reachable", "last_id"}], "unreachable": [k...]}.
// `mine`: this shard's events for `q` (describe()d); `my_last_id`: its log's last id.
nlohmann::json fleet_events(Fleet& fleet, const EventQuery& q, const nlohmann::json& mine, uint64_t my_last_id);

// The events of `list` (a shard's answer, oldest first) of the documented shape, each with only
// the documented fields and `shard`: a stream's name, a condition, "entered" or "left", an id, a
// Unix time a page can show (since too, when given) and a number or null for value. At most the
// newest `limit`: a shard is asked for no more.
nlohmann::json peer_events(const nlohmann::json& list, int shard, size_t limit);

// The query a peer is asked for its part of `q` (stream, kind, since, limit; never after).
std::string peer_events_target(const EventQuery& q);

}  // namespace vf
