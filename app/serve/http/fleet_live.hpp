// GET /live for tiles of several shards (app/serve/fleet/fleet.hpp): the page keeps one connection, whatever
// shards its tiles are on. The tiles of this process come from answer_live_tiles, those of each
// other shard from that shard's own /live, relayed; every message's tile number is set back to its
// place in the page's list. A shard that does not answer gets a "gone" message for each of its
// tiles, and is asked again every few seconds until it answers or the page leaves.
#pragma once

#include <memory>

#include "app/serve/fleet/fleet.hpp"
#include "app/serve/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

HttpResponse answer_fleet_live(StreamService& service, Fleet& fleet, const HttpRequest& req, std::shared_ptr<void> slot);

}  // namespace vf
