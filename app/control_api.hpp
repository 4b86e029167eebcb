// The HTTP API of `vfilter serve` (docs/serve.md): GET /streams, GET /streams/NAME,
// POST /streams, DELETE /streams/NAME, PUT /streams/NAME/filter, the previews
// (GET /streams/NAME/snapshot.jpg, GET /streams/NAME/preview.mjpg), live video (GET
// /streams/NAME/live.mp4, GET /live for the page's tiles: app/live_api.hpp), and beside them the page
// (GET /, its script, style and icon), GET /filters, /metrics, /healthz and /readyz.
// With a token, every /streams and /live request needs "Authorization: Bearer TOKEN"; the page, the filter
// table, the probes and /metrics stay open (they change nothing and show no credentials or
// pictures).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "app/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

struct ControlApiOptions {
    std::string token;            // empty: no token needed (loopback only; see serve_command.cpp)
    int max_preview_streams = 8;  // preview.mjpg, live.mp4 and /live answered at once; more get 503
};

// HTTP worker threads the API server needs: requests and every preview stream at once.
inline int control_api_workers(const ControlApiOptions& o) { return 4 + o.max_preview_streams; }

class ControlApi {
public:
    ControlApi(StreamService& service, ControlApiOptions options) : service_(service), options_(std::move(options)) {}
    HttpResponse answer(const HttpRequest& request);  // any thread

private:
    HttpResponse answer_streams(const HttpRequest& request);
    HttpResponse answer_preview(const HttpRequest& request, const std::string& name, const std::string& what);
    // A place among the long answers (preview.mjpg, live.mp4, /live), held by *slot's copies;
    // false when max_preview_streams are running.
    bool take_preview_slot(std::shared_ptr<void>* slot);
    HttpResponse previews_busy() const;  // 503 with Retry-After

    StreamService& service_;
    ControlApiOptions options_;
    std::atomic<int> preview_streams_{0};
};

}  // namespace vf
