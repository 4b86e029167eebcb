#include "app/serve/http/control_api.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "app/serve/http/fleet_live.hpp"
#include "app/serve/http/live_api.hpp"
#include "app/serve/http/watch_api.hpp"
#include "app/serve/http/web_assets.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "config/filter_table_json.hpp"

namespace vf {
namespace {

const char* const kJson = "application/json";

HttpResponse json_answer(int status, const nlohmann::json& body) { return {status, kJson, body.dump(2) + "\n"}; }
HttpResponse error_answer(int status, const std::string& why) {
    return json_answer(status, nlohmann::json{{"error", redact_credentials(why)}});
}

// The filter chain of a PUT: {"filter": "CHAIN"}, the chain as a JSON string, or the chain as
// it is (still sent as application/json: the type is what keeps other sites' pages out).
std::string filter_from_body(const std::string& body) {
    const size_t first = body.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw ServiceError(400, "the body must hold the filter chain");
    if (body[first] != '{' && body[first] != '"') {
        const size_t last = body.find_last_not_of(" \t\r\n");
        return body.substr(first, last - first + 1);
    }
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_string()) return j.get<std::string>();
    if (j.is_object() && j.contains("filter") && j["filter"].is_string()) return j["filter"].get<std::string>();
    throw ServiceError(400, "expected {\"filter\": \"CHAIN\"}");
}

const char* const kBoundary = "vfilterframe";

}  // namespace

ControlApi::ControlApi(StreamService& service, ControlApiOptions options, Fleet* fleet, ApiChanges* changes)
    : service_(service),
      options_(std::move(options)),
      guard_(ApiGuardOptions{options_.token, options_.viewer_token, options_.bind, options_.hosts}),
      fleet_(fleet),
      changes_(changes),
      events_(service.events(), options_.max_event_streams, [&service] { return service.closing(); }, fleet) {}

bool ControlApi::take_preview_slot(std::shared_ptr<void>* slot) {
    if (preview_streams_->fetch_add(1) >= options_.max_preview_streams) {
        --*preview_streams_;
        return false;
    }
    // Given back when the last copy is gone (the answer's function, whether it ran or not: a
    // client that left before its first byte, a HEAD request, a refused query), which may be
    // after this API is gone (a forward that completes as serve stops).
    *slot = std::shared_ptr<void>(nullptr, [count = preview_streams_](void*) { --*count; });
    return true;
}

HttpResponse ControlApi::previews_busy() const {
    HttpResponse r = error_answer(503, std::to_string(options_.max_preview_streams) +
                                           " previews are being watched already (snapshot.jpg still answers)");
    r.headers.push_back({"Retry-After", "5"});
    return r;
}

HttpResponse ControlApi::answer_preview(const HttpRequest& req, const std::string& name, const std::string& what) {
    if (req.method != "GET" && req.method != "HEAD") return error_answer(405, req.method + " /streams/NAME/" + what + ": use GET");
    const bool stream = what == "preview.mjpg";
    const PreviewQuery q = parse_preview_query(req.query, stream);
    std::shared_ptr<StreamPreview> preview = service_.preview(name);  // 404
    if (!stream) {
        const std::optional<PreviewPicture> p = preview->picture(q.side, q.width);
        if (!p) {
            HttpResponse r = error_answer(503, "stream '" + name + "' has passed no frame yet");
            r.headers.push_back({"Retry-After", "1"});
            return r;
        }
        return {200, "image/jpeg", p->jpeg};
    }
    std::shared_ptr<void> slot;
    if (!take_preview_slot(&slot)) return previews_busy();
    HttpResponse r;
    r.content_type = std::string("multipart/x-mixed-replace; boundary=") + kBoundary;
    r.stream = [this, preview, name, q, slot](const HttpBodyWriter& write) {
        const auto interval = std::chrono::milliseconds(1000 / q.fps);
        // A stream that passes no frame (a camera reconnecting) gets its last picture again this
        // often, so a viewer that went is noticed and its thread freed.
        const auto repeat_after = std::chrono::seconds(5);
        uint64_t sent = 0;
        auto sent_at = std::chrono::steady_clock::now(), next_at = sent_at;
        while (!service_.closing()) {
            std::optional<PreviewPicture> p;
            try {
                if (service_.preview(name) != preview) return;  // replaced
            } catch (const ServiceError&) {
                return;  // removed
            }
            try {
                p = preview->picture(q.side, q.width);
            } catch (const std::exception& e) {
                spdlog::warn("preview of '{}': {}", name, e.what());
                return;
            }
            const auto now = std::chrono::steady_clock::now();
            if (p && (p->sequence != sent || now - sent_at > repeat_after)) {
                sent = p->sequence;
                sent_at = now;
                const std::string head = std::string("--") + kBoundary + "\r\nContent-Type: image/jpeg\r\nContent-Length: " +
                                         std::to_string(p->jpeg.size()) + "\r\n\r\n";
                if (!write(head) || !write(p->jpeg) || !write("\r\n")) return;  // the viewer went
            }
            // A viewer that reads slowly is skipped ahead: the next picture is the newest.
            next_at = std::max(next_at + interval, std::chrono::steady_clock::now());
            std::this_thread::sleep_until(next_at);
        }
    };
    return r;
}

int ControlApi::forward_to(const HttpRequest& req, const std::string& name) const {
    if (!fleet_ || !fleet_->has_peers() || !req.forwarded_by.empty() || !valid_stream_name(name)) return -1;
    const int owner = fleet_->owner_of(name);
    return owner == fleet_->shard_index() ? -1 : owner;
}

HttpResponse ControlApi::answer_stream_list(const HttpRequest& req) {
    std::string scope = "shard";
    for (const auto& [key, value] : query_pairs(req.query, 256)) {
        if (key != "scope") throw ServiceError(400, "unknown parameter: GET /streams takes scope=shard (the default) or scope=fleet");
        scope = value;
    }
    if (scope == "shard") return json_answer(200, service_.list());
    if (scope != "fleet") throw ServiceError(400, "scope=" + scope + ": expected shard (this process's streams) or fleet (every shard's)");
    if (!fleet_) throw ServiceError(400, "scope=fleet: this process has no fleet view");
    nlohmann::json view = fleet_->view();
    if (const nlohmann::json left = service_.capacity_left(); !left.is_null()) view["capacity_left"] = left;
    return json_answer(200, view);
}

HttpResponse ControlApi::answer_streams(const HttpRequest& req) {
    const std::string& path = req.path;
    if (path == "/streams" || path == "/streams/") {
        if (req.method == "GET" || req.method == "HEAD") return answer_stream_list(req);
        if (req.method == "POST") {
            const nlohmann::json entry = nlohmann::json::parse(req.body, nullptr, false);
            if (entry.is_object() && entry.contains("name") && entry["name"].is_string()) {
                const int owner = forward_to(req, entry["name"].get<std::string>());
                if (owner >= 0) return fleet_->forward(owner, req, false);
            }
            StreamConfig s;
            try {
                s = stream_from_json(req.body, service_.defaults(), options_.access);
            } catch (const Forbidden& e) {
                throw ServiceError(403, e.what());
            } catch (const Error& e) {
                throw ServiceError(400, e.what());
            }
            const std::string name = s.name;
            const StreamConfig added = s;
            service_.add(std::move(s));
            if (changes_) changes_->added(added, entry);
            if (options_.list_changed) options_.list_changed(name, &added);
            for (const nlohmann::json& j : service_.list())
                if (j["name"] == name) return json_answer(201, j);
            return json_answer(201, nlohmann::json{{"name", name}});
        }
        return error_answer(405, req.method + " /streams: use GET or POST");
    }
    const std::string rest = path.substr(std::string("/streams/").size());
    const size_t slash = rest.find('/');
    const std::string name = rest.substr(0, slash);
    const std::string tail = slash == std::string::npos ? "" : rest.substr(slash);
    if (!valid_stream_name(name)) return error_answer(404, "no such resource: a stream's name is made of A-Z, a-z, 0-9, _ and -");
    if (tail == "/recordings")  // every shard's, not the owner's alone
        return answer_recordings(req, name, options_.recordings, fleet_, fleet_ ? fleet_->shard_index() : 0);
    if (const int owner = forward_to(req, name); owner >= 0) {
        if (tail != "/preview.mjpg" && tail != "/live.mp4") return fleet_->forward(owner, req, false);
        std::shared_ptr<void> slot;  // a relayed stream takes a place here too: it holds a worker
        if (!take_preview_slot(&slot)) return previews_busy();
        return fleet_->forward(owner, req, true, slot);
    }
    if (tail == "/snapshot.jpg" || tail == "/preview.mjpg") return answer_preview(req, name, tail.substr(1));
    if (tail == "/watch") return answer_stream_watch(service_, req, name);
    if (tail == "/live.mp4") {
        std::shared_ptr<void> slot;
        if (!take_preview_slot(&slot)) return previews_busy();
        return answer_live_mp4(service_, req, name, slot);
    }
    if (tail.empty()) {
        if (req.method == "GET" || req.method == "HEAD") {
            for (const nlohmann::json& j : service_.list())
                if (j["name"] == name) return json_answer(200, j);
            throw ServiceError(404, "no stream named '" + name + "'");
        }
        if (req.method == "DELETE") {
            nlohmann::json last = service_.remove(name);
            if (changes_) changes_->removed(name);
            if (options_.list_changed) options_.list_changed(name, nullptr);
            return json_answer(200, last);
        }
        return error_answer(405, req.method + " /streams/NAME: use GET or DELETE");
    }
    if (tail == "/filter") {
        if (req.method != "PUT") return error_answer(405, req.method + " /streams/NAME/filter: use PUT");
        const std::string chain = filter_from_body(req.body);
        service_.set_filter(name, chain, options_.access.kernel_files());
        if (changes_) changes_->filter_set(name, chain);
        for (const nlohmann::json& j : service_.list())
            if (j["name"] == name) return json_answer(200, j);
    }
    return error_answer(404, "no such resource: /streams/" + name + "/...: expected filter, recordings, watch, snapshot.jpg, preview.mjpg or live.mp4");
}

HttpResponse ControlApi::answer(const HttpRequest& req) {
    // The server screens each head before reading its body; answered here too, for every door,
    // and here a signed peer call's nonce is taken (app/serve/http/api_guard.hpp, PeerNonce).
    if (std::optional<HttpResponse> refused = guard_.screen(req, PeerNonce::Spend)) {
        if (req.method != "GET" && req.method != "HEAD") spdlog::info("api: {} {} -> {}", req.method, req.path, refused->status);
        return *refused;
    }
    try {
        if (const WebAsset* page = find_web_asset(req.path)) {
            if (req.method != "GET" && req.method != "HEAD") return error_answer(405, "the page is read with GET");
            return {200, page->content_type, std::string(page->body)};
        }
        if (req.path == "/filters") {
            if (req.method != "GET" && req.method != "HEAD") return error_answer(405, "only GET /filters");
            return json_answer(200, filter_table_json());
        }
        if (is_probe_path(req.path) && req.method != "GET" && req.method != "HEAD") return error_answer(405, "the probes are read with GET");
        if (req.path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
        if (req.path == "/readyz") {
            const bool ready = service_.ready();
            return {ready ? 200 : 503, "text/plain; charset=utf-8", ready ? "ready\n" : "streams are still opening\n"};
        }
        if (req.path == "/metrics") {
            if (req.method != "GET" && req.method != "HEAD") return error_answer(405, "only GET /metrics");
            return {200, "text/plain; version=0.0.4; charset=utf-8", service_.metrics() + service_.events().listener_metrics() + (fleet_ ? fleet_->metrics() : "")};
        }
        if (req.path == "/streams" || req.path.rfind("/streams/", 0) == 0 || req.path == "/live" || req.path == "/fleet/shard") {
            if (req.path == "/fleet/shard") {
                if (req.method != "GET" && req.method != "HEAD") return error_answer(405, "only GET /fleet/shard");
                if (!fleet_) return error_answer(404, "this process has no fleet view");
                return json_answer(200, fleet_->describe_self());
            }
            std::shared_ptr<void> slot;
            const bool relayed = fleet_ && fleet_->has_peers() && req.forwarded_by.empty();
            HttpResponse r = req.path != "/live"        ? answer_streams(req)
                             : !take_preview_slot(&slot) ? previews_busy()
                             : relayed                   ? answer_fleet_live(service_, *fleet_, req, slot)
                                                         : answer_live_tiles(service_, req, slot);
            if (req.method != "GET" && req.method != "HEAD" && !r.deferred)  // a forward logs its answer when it comes
                spdlog::info("api: {} {} -> {}", req.method, req.path, r.status);
            return r;
        }
        if (req.path == "/events" || req.path == "/events/stream") return events_.answer(req);
        return error_answer(404, "vfilter serve answers /, /streams, /live, /events, /fleet/shard, /filters, /metrics, /healthz and /readyz");
    } catch (const ServiceError& e) {
        spdlog::info("api: {} {} -> {}: {}", req.method, req.path, e.status(), e.what());
        return error_answer(e.status(), e.what());
    }
}

}  // namespace vf
