#include "app/serve/http/watch_api.hpp"

#include <chrono>

#include "app/serve/preview/preview_query.hpp"
#include "app/serve/service_error.hpp"
#include "app/serve/watch/measure_history.hpp"

namespace vf {

HttpResponse answer_stream_watch(const StreamService& service, const HttpRequest& req, const std::string& name) {
    if (req.method != "GET" && req.method != "HEAD") throw ServiceError(405, req.method + " /streams/NAME/watch: use GET");
    int seconds = static_cast<int>(MeasureHistory::kKeptS);
    for (const auto& [key, value] : query_pairs(req.query, 256)) {
        if (key != "seconds") throw ServiceError(400, "unknown parameter: GET /streams/NAME/watch takes seconds (1 to 120)");
        seconds = query_whole_number("seconds", value, 1, static_cast<int>(MeasureHistory::kKeptS));
    }
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::json body = service.watch(name)->describe_history(now - seconds);
    body["stream"] = name;
    // One line: a page asks for it every few seconds for every tile in view.
    return {200, "application/json", body.dump() + "\n"};
}

}  // namespace vf
