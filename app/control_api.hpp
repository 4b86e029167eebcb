// The HTTP API of `vfilter serve` (docs/serve.md): GET /streams, GET /streams/NAME,
// POST /streams, DELETE /streams/NAME, PUT /streams/NAME/filter, and beside them /metrics,
// /healthz and /readyz. With a token, every /streams request needs "Authorization: Bearer TOKEN";
// the probes and /metrics stay open (they change nothing and show no credentials).
#pragma once

#include <string>

#include "app/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

HttpResponse answer_control_request(const HttpRequest& request, StreamService& service, const std::string& token);

}  // namespace vf
