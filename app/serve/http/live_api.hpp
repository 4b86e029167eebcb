// serve's live video over HTTP (docs/serve.md, "Live video"):
// - GET /streams/NAME/live.mp4?side=input|output&width=W: one stream as fragmented MP4 (an init
//   segment, then one fragment a frame from a keyframe on), for ffplay, ffprobe, VLC or a
//   <video> element; it ends when the picture size changes (a new init segment) or the stream ends.
// - GET /live?streams=NAME[:side],...&width=W: every tile of the page over one connection (the
//   browser's six-connection limit), as messages the page splits: a 4-byte big-endian length and a
//   JSON header, then a 4-byte length and the bytes (an init segment or a fragment). Headers:
//   {"tile": i, "type": "init", "codec": "avc1...", "width": W, "height": H},
//   {"tile": i, "type": "fragment", "key": true|false, "pts": ms, "arrived": Unix ms},
//   {"tile": i, "type": "gone", "why": "..."} (removed, ended, refused), and about once a second
//   {"type": "tick", "now": Unix ms} so that either side notices the other has gone.
// Both count against serve: max-previews (with preview.mjpg: the caller holds the place, `slot`, which
// the answer keeps until it ends); with --api-token both need the token.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/serve/preview/preview_query.hpp"
#include "app/serve/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

// One tile that /live is asked for.
struct LiveTileAsk {
    std::string name;
    PreviewSide side = PreviewSide::Output;
};
constexpr size_t kLiveMaxTiles = 64;
// streams=a:output,b:input&width=W; ServiceError 400 with the reason for anything else.
std::vector<LiveTileAsk> parse_live_query(const std::string& raw, int* width);
// The query that asks for these tiles (the inverse of parse_live_query).
std::string live_query(const std::vector<LiveTileAsk>& tiles, int width);
// One message of /live: the header's length and the header, the bytes' length and the bytes.
std::string live_message(const nlohmann::json& header, const std::string& bytes = "");

HttpResponse answer_live_mp4(StreamService& service, const HttpRequest& req, const std::string& name, std::shared_ptr<void> slot);
HttpResponse answer_live_tiles(StreamService& service, const HttpRequest& req, std::shared_ptr<void> slot);

}  // namespace vf
