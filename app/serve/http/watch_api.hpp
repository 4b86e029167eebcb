// GET /streams/NAME/watch (docs/serve.md, "Cameras that watch themselves"): a watched stream's
// conditions and its picture measures of the last two minutes (app/serve/watch/measure_history.hpp),
// for the page's small live graphs. ?seconds=N (1 to 120) asks for the last N seconds only, what a
// page that already holds the rest fetches again. Its token rule is that of GET /streams.
#pragma once

#include <string>

#include "app/serve/stream_service.hpp"
#include "common/http_server.hpp"

namespace vf {

// ServiceError 404 for a stream that is not served here or does not watch itself, 400 for a bad query.
HttpResponse answer_stream_watch(const StreamService& service, const HttpRequest& request, const std::string& name);

}  // namespace vf
