// The HTTP API of `vfilter serve` (docs/serve.md): GET /streams, GET /streams/NAME,
// POST /streams, DELETE /streams/NAME, PUT /streams/NAME/filter, the previews
// (GET /streams/NAME/snapshot.jpg, GET /streams/NAME/preview.mjpg), the watched streams' events (GET
// /events, GET /events/stream: app/serve/http/events_api.hpp) and measures (GET /streams/NAME/watch:
// app/serve/http/watch_api.hpp), live video (GET
// /streams/NAME/live.mp4, GET /live for the page's tiles: app/serve/http/live_api.hpp), and beside them the page
// (GET /, its script, style and icon), GET /filters, /metrics, /healthz and /readyz.
// With --peers (app/serve/fleet/fleet.hpp) it answers for the fleet: GET /streams?scope=fleet, and requests for
// a stream of another shard passed to that shard's process; GET /fleet/shard is what peers ask.
// Changes that succeed are recorded in ApiChanges (kept over reloads and, with a file, restarts).
// Every request passes ApiGuard first (app/serve/http/api_guard.hpp: Host, Origin, content type, the admin or
// viewer token); a client's stream fields are checked against what the operator allowed clients
// (app/serve/client_access.hpp). The page, the filter table, the probes and /metrics need no token (they
// change nothing and show no credentials or pictures).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "app/serve/api_changes.hpp"
#include "app/serve/client_access.hpp"
#include "app/serve/fleet/fleet.hpp"
#include "app/serve/http/api_guard.hpp"
#include "app/serve/http/events_api.hpp"
#include "app/serve/http/recordings_api.hpp"
#include "app/serve/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

struct ControlApiOptions {
    ControlApiOptions(std::string admin_token = "", int previews = 8)
        : token(std::move(admin_token)), max_preview_streams(previews) {}
    std::string token;            // the admin token; empty: no token needed (loopback only; see serve_command.cpp)
    int max_preview_streams = 8;  // preview.mjpg, live.mp4 and /live answered at once; more get 503
    std::string viewer_token;     // may look, not change; empty: none
    std::string bind = "127.0.0.1";  // the server's address, and further names of it (serve: api-hosts)
    std::vector<std::string> hosts;
    ClientAccess access;          // what a client's streams may read, write and load
    RecordingsLookup recordings;  // where each stream of the list records (GET /streams/NAME/recordings)
    // Told of each stream this API added (`now`: its entry) or removed (null), once done, so that
    // `recordings` lists it, or no longer does, before the list is loaded again.
    std::function<void(const std::string& name, const StreamConfig* now)> list_changed;
    int max_event_streams = EventsApi::kDefaultMaxStreams;  // GET /events/stream answered at once; more get 503
};

// HTTP worker threads the API server needs: requests and every preview stream at once.
inline int control_api_workers(const ControlApiOptions& o) { return 4 + o.max_preview_streams + o.max_event_streams; }

class ControlApi {
public:
    // fleet, changes: may be null (no fleet view or forwarding; changes not recorded).
    ControlApi(StreamService& service, ControlApiOptions options, Fleet* fleet = nullptr, ApiChanges* changes = nullptr);
    HttpResponse answer(const HttpRequest& request);  // any thread
    // A refusal from the request's head alone (before its body is read), or nullopt.
    std::optional<HttpResponse> screen(const HttpRequest& head) const { return guard_.screen(head, PeerNonce::Check); }

private:
    HttpResponse answer_streams(const HttpRequest& request);
    HttpResponse answer_stream_list(const HttpRequest& request);  // GET /streams[?scope=shard|fleet]
    // The shard whose process answers for stream `name` when that is not this one (and the request
    // was not forwarded already): -1 when this process answers.
    int forward_to(const HttpRequest& request, const std::string& name) const;
    HttpResponse answer_preview(const HttpRequest& request, const std::string& name, const std::string& what);
    // A place among the long answers (preview.mjpg, live.mp4, /live), held by *slot's copies;
    // false when max_preview_streams are running.
    bool take_preview_slot(std::shared_ptr<void>* slot);
    HttpResponse previews_busy() const;  // 503 with Retry-After

    StreamService& service_;
    ControlApiOptions options_;
    ApiGuard guard_;
    Fleet* fleet_;
    ApiChanges* changes_;
    EventsApi events_;
    std::shared_ptr<std::atomic<int>> preview_streams_ = std::make_shared<std::atomic<int>>(0);  // outlives this with its last slot
};

}  // namespace vf
