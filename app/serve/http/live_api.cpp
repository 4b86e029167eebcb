#include "app/serve/http/live_api.hpp"

#include <chrono>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/serve/preview/preview_query.hpp"
#include "app/serve/preview/stream_preview.hpp"
#include "app/serve/service_error.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

int64_t unix_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string be32(size_t n) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>((n >> (24 - 8 * i)) & 0xff);
    return s;
}


struct Tile {
    std::string name;
    PreviewSide side = PreviewSide::Output;
    std::shared_ptr<StreamPreview> preview;  // kept while watched: the viewer reads its taps
    std::unique_ptr<LiveVideo::Viewer> viewer;
};

}  // namespace

std::vector<LiveTileAsk> parse_live_query(const std::string& raw, int* width) {
    std::vector<LiveTileAsk> tiles;
    for (const auto& [key, value] : query_pairs(raw, 4096)) {
        if (key == "width") {
            *width = query_whole_number(key, value, kPreviewMinWidth, kPreviewMaxWidth);
        } else if (key == "streams") {
            size_t from = 0;
            while (from <= value.size()) {
                size_t comma = value.find(',', from);
                if (comma == std::string::npos) comma = value.size();
                const std::string item = value.substr(from, comma - from);
                from = comma + 1;
                if (item.empty()) continue;
                LiveTileAsk t;
                const size_t colon = item.find(':');
                t.name = item.substr(0, colon);
                const std::string side = colon == std::string::npos ? "output" : item.substr(colon + 1);
                if (side == "input") t.side = PreviewSide::Input;
                else if (side != "output") throw ServiceError(400, "streams: a tile's side is input or output");
                if (!valid_stream_name(t.name)) throw ServiceError(400, "streams: a stream's name is made of A-Z, a-z, 0-9, _ and -");
                tiles.push_back(std::move(t));
                if (tiles.size() > kLiveMaxTiles) throw ServiceError(400, "streams: at most 64 tiles on one connection");
            }
        } else {
            throw ServiceError(400, "unknown parameter: expected streams=NAME[:side],... and width=W");
        }
    }
    if (tiles.empty()) throw ServiceError(400, "streams: name at least one stream, e.g. streams=cam1,cam2:input");
    return tiles;
}

std::string live_query(const std::vector<LiveTileAsk>& tiles, int width) {
    std::string q = "streams=";
    for (size_t i = 0; i < tiles.size(); ++i)
        q += (i ? "%2C" : "") + tiles[i].name + (tiles[i].side == PreviewSide::Input ? "%3Ainput" : "%3Aoutput");
    return q + "&width=" + std::to_string(width);
}

std::string live_message(const nlohmann::json& header, const std::string& bytes) {
    const std::string h = header.dump();
    return be32(h.size()) + h + be32(bytes.size()) + bytes;
}

HttpResponse answer_live_mp4(StreamService& service, const HttpRequest& req, const std::string& name, std::shared_ptr<void> slot) {
    if (req.method != "GET" && req.method != "HEAD") throw ServiceError(405, req.method + " /streams/NAME/live.mp4: use GET");
    const PreviewQuery q = parse_preview_query(req.query, false);
    std::shared_ptr<StreamPreview> preview = service.preview(name);  // 404
    HttpResponse r;
    r.content_type = "video/mp4";
    r.stream = [&service, preview, name, q, slot](const HttpBodyWriter& write) {
        std::unique_ptr<LiveVideo::Viewer> viewer;
        try {
            viewer = preview->live().watch(q.side, q.width);
        } catch (const ServiceError& e) {
            spdlog::info("live.mp4 of '{}': {}", name, e.what());
            return;
        }
        bool started = false;
        while (!service.closing() && !viewer->ended()) {
            for (const LiveMessage& m : viewer->next(1000ms)) {
                if (m.init && started) return;  // a new picture size: a plain MP4 cannot change it; the client asks again
                started = started || m.init;
                if (started && !write(m.bytes)) return;  // the viewer went
            }
            if (!started && !write("")) return;  // nothing yet (a camera reconnecting): is anyone still there?
        }
    };
    return r;
}

HttpResponse answer_live_tiles(StreamService& service, const HttpRequest& req, std::shared_ptr<void> slot) {
    if (req.method != "GET" && req.method != "HEAD") throw ServiceError(405, req.method + " /live: use GET");
    int width = 480;
    auto tiles = std::make_shared<std::vector<Tile>>();
    for (LiveTileAsk& t : parse_live_query(req.query, &width)) tiles->push_back(Tile{std::move(t.name), t.side, nullptr, nullptr});
    HttpResponse r;
    r.content_type = "application/octet-stream";
    r.stream = [&service, tiles, width, slot](const HttpBodyWriter& write) {
        auto gone = [&](size_t i, const std::string& why) {
            Tile& t = (*tiles)[i];
            t.viewer.reset();  // before the preview whose taps it reads
            t.preview.reset();
            return write(live_message({{"tile", i}, {"type", "gone"}, {"why", why}}));
        };
        for (size_t i = 0; i < tiles->size(); ++i) {
            Tile& t = (*tiles)[i];
            try {
                t.preview = service.preview(t.name);
                t.viewer = t.preview->live().watch(t.side, width);
            } catch (const ServiceError& e) {
                if (!gone(i, e.what())) return;
            }
        }
        auto checked_at = std::chrono::steady_clock::now();
        while (!service.closing()) {
            bool any = false;
            for (size_t i = 0; i < tiles->size(); ++i) {
                Tile& t = (*tiles)[i];
                if (!t.viewer) continue;
                for (const LiveMessage& m : t.viewer->next(0ms)) {
                    any = true;
                    nlohmann::json h = m.init ? nlohmann::json{{"tile", i}, {"type", "init"}, {"codec", m.codec}, {"width", m.width}, {"height", m.height}}
                                              : nlohmann::json{{"tile", i}, {"type", "fragment"}, {"key", m.keyframe}, {"pts", m.pts_ms}, {"arrived", m.arrived_ms}};
                    if (!write(live_message(h, m.bytes))) return;  // the page went
                }
                if (t.viewer->ended() && !gone(i, "the stream ended")) return;
            }
            const auto now = std::chrono::steady_clock::now();
            if (now - checked_at >= 1s) {
                checked_at = now;
                for (size_t i = 0; i < tiles->size(); ++i) {
                    Tile& t = (*tiles)[i];
                    if (!t.viewer) continue;
                    std::shared_ptr<StreamPreview> current;
                    try {
                        current = service.preview(t.name);
                    } catch (const ServiceError&) {
                    }
                    if (current != t.preview && !gone(i, current ? "the stream was replaced" : "the stream was removed")) return;
                }
                if (!write(live_message({{"type", "tick"}, {"now", unix_ms_now()}}))) return;
            }
            if (!any) std::this_thread::sleep_for(5ms);
        }
    };
    return r;
}

}  // namespace vf
