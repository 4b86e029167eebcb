#include "app/control_api.hpp"

#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/redact.hpp"

namespace vf {
namespace {

const char* const kJson = "application/json";

HttpResponse json_answer(int status, const nlohmann::json& body) { return {status, kJson, body.dump(2) + "\n"}; }
HttpResponse error_answer(int status, const std::string& why) {
    return json_answer(status, nlohmann::json{{"error", redact_credentials(why)}});
}

// The filter chain of a PUT: the body as text, or {"filter": "..."}.
std::string filter_from_body(const std::string& body) {
    const size_t first = body.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw ServiceError(400, "the body must hold the filter chain");
    if (body[first] != '{') {
        const size_t last = body.find_last_not_of(" \t\r\n");
        return body.substr(first, last - first + 1);
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(body);
        if (j.contains("filter") && j["filter"].is_string()) return j["filter"].get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
    throw ServiceError(400, "expected the filter chain as text, or {\"filter\": \"CHAIN\"}");
}

HttpResponse answer_streams(const HttpRequest& req, StreamService& service) {
    const std::string& path = req.path;
    if (path == "/streams" || path == "/streams/") {
        if (req.method == "GET" || req.method == "HEAD") return json_answer(200, service.list());
        if (req.method == "POST") {
            StreamConfig s;
            try {
                s = stream_from_json(req.body, service.defaults());
            } catch (const Error& e) {
                throw ServiceError(400, e.what());
            }
            const std::string name = s.name;
            service.add(std::move(s));
            for (const nlohmann::json& j : service.list())
                if (j["name"] == name) return json_answer(201, j);
            return json_answer(201, nlohmann::json{{"name", name}});
        }
        return error_answer(405, req.method + " /streams: use GET or POST");
    }
    const std::string rest = path.substr(std::string("/streams/").size());
    const size_t slash = rest.find('/');
    const std::string name = rest.substr(0, slash);
    const std::string tail = slash == std::string::npos ? "" : rest.substr(slash);
    if (tail.empty()) {
        if (req.method == "GET" || req.method == "HEAD") {
            for (const nlohmann::json& j : service.list())
                if (j["name"] == name) return json_answer(200, j);
            throw ServiceError(404, "no stream named '" + name + "'");
        }
        if (req.method == "DELETE") return json_answer(200, service.remove(name));
        return error_answer(405, req.method + " /streams/NAME: use GET or DELETE");
    }
    if (tail == "/filter") {
        if (req.method != "PUT") return error_answer(405, req.method + " /streams/NAME/filter: use PUT");
        service.set_filter(name, filter_from_body(req.body));
        for (const nlohmann::json& j : service.list())
            if (j["name"] == name) return json_answer(200, j);
    }
    return error_answer(404, "no such resource: " + path);
}

}  // namespace

HttpResponse answer_control_request(const HttpRequest& req, StreamService& service, const std::string& token) {
    try {
        if (req.path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
        if (req.path == "/readyz") {
            const bool ready = service.ready();
            return {ready ? 200 : 503, "text/plain; charset=utf-8", ready ? "ready\n" : "streams are still opening\n"};
        }
        if (req.path == "/metrics") {
            if (req.method != "GET" && req.method != "HEAD") return error_answer(405, "only GET /metrics");
            return {200, "text/plain; version=0.0.4; charset=utf-8", service.metrics()};
        }
        if (req.path == "/streams" || req.path.rfind("/streams/", 0) == 0) {
            if (!token.empty() && !bearer_token_matches(req.authorization, token))
                return error_answer(401, "this API needs \"Authorization: Bearer TOKEN\" (the --api-token of vfilter serve)");
            HttpResponse r = answer_streams(req, service);
            if (req.method != "GET" && req.method != "HEAD")
                spdlog::info("api: {} {} -> {}", req.method, req.path, r.status);
            return r;
        }
        return error_answer(404, "vfilter serve answers /streams, /metrics, /healthz and /readyz");
    } catch (const ServiceError& e) {
        spdlog::info("api: {} {} -> {}: {}", req.method, req.path, e.status(), e.what());
        return error_answer(e.status(), e.what());
    }
}

}  // namespace vf
