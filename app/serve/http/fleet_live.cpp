#include "app/serve/http/fleet_live.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/serve/http/live_api.hpp"
#include "app/serve/service_error.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

uint32_t be32_at(const std::string& s, size_t at) {
    uint32_t n = 0;
    for (size_t i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(s[at + i]);
    return n;
}

// The page's one connection, written by every shard's thread in turn; false from the first
// failed write on (the page went).
class SharedWriter {
public:
    explicit SharedWriter(const HttpBodyWriter& write) : write_(write) {}
    bool send(const std::string& bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (gone_) return false;
        if (!write_(bytes)) gone_ = true;
        return !gone_;
    }
    bool gone() {
        std::lock_guard<std::mutex> lock(mutex_);
        return gone_;
    }
    void finish() {  // serve is stopping: every writer ends
        std::lock_guard<std::mutex> lock(mutex_);
        gone_ = true;
    }

private:
    const HttpBodyWriter& write_;
    std::mutex mutex_;
    bool gone_ = false;
};

// Cuts one shard's /live bytes into messages and sends each with its tile's place in the page's
// list (`places`). The sub-connection's own ticks are dropped: the merged answer sends its own.
class Renumberer {
public:
    Renumberer(SharedWriter& out, std::vector<size_t> places) : out_(out), places_(std::move(places)) {}
    bool take(const std::string& bytes) {
        pending_ += bytes;
        size_t at = 0;
        while (pending_.size() - at >= 8) {
            const size_t header_length = be32_at(pending_, at);
            // A peer's lengths are bounded before anything waits for them: a header is a line of
            // JSON, a body one fragment of live video.
            if (header_length > kMaxPeerHeader) return refuse("a message header of " + std::to_string(header_length) + " bytes");
            if (pending_.size() - at < 8 + header_length) break;
            const size_t bytes_length = be32_at(pending_, at + 4 + header_length);
            if (bytes_length > kMaxPeerBody) return refuse("a message of " + std::to_string(bytes_length) + " bytes");
            const size_t end = at + 8 + header_length + bytes_length;
            if (pending_.size() < end) break;
            nlohmann::json header = nlohmann::json::parse(pending_.substr(at + 4, header_length), nullptr, false);
            const std::string body = pending_.substr(at + 8 + header_length, bytes_length);
            at = end;
            if (!header.is_object() || !header.contains("tile")) continue;  // ticks
            if (!header["tile"].is_number_unsigned() || header["tile"].get<size_t>() >= places_.size())
                return refuse("a message for no tile it was asked for");
            const size_t tile = header["tile"].get<size_t>();
            header["tile"] = places_[tile];
            if (!out_.send(live_message(header, body))) return false;
        }
        pending_.erase(0, at);
        return true;
    }
    // What was wrong with the shard's bytes when take() refused them ("" when nothing was).
    const std::string& broken() const { return broken_; }
    // Every tile gone, with the reason (the shard stopped answering).
    bool all_gone(const std::string& why) {
        pending_.clear();
        for (const size_t place : places_)
            if (!out_.send(live_message({{"tile", place}, {"type", "gone"}, {"why", why}}))) return false;
        return true;
    }

private:
    static constexpr size_t kMaxPeerHeader = 64 << 10, kMaxPeerBody = 16 << 20;
    bool refuse(const std::string& what) {
        broken_ = what;
        pending_.clear();
        return false;
    }
    SharedWriter& out_;
    std::vector<size_t> places_;
    std::string pending_;
    std::string broken_;
};

// One other shard's tiles, relayed until the page goes; asked again after it stops answering.
void relay_shard(Fleet& fleet, int shard, const std::vector<LiveTileAsk>& tiles, std::vector<size_t> places, int width,
                 SharedWriter& out) {
    Renumberer renumber(out, std::move(places));
    const std::string why_prefix = "shard " + std::to_string(shard) + "/" + std::to_string(fleet.shard_count());
    while (!out.gone()) {
        std::string why;
        std::optional<HttpCall> call = fleet.call_to(shard, &why);
        if (call) {
            call->target = "/live?" + live_query(tiles, width);
            call->read_timeout_ms = 5000;  // its ticks come every second
            fleet.sign(*call);
            auto [relay, head] = HttpStreamedCall::open(*call);
            if (relay && head.status == 200) {
                std::string piece;
                bool more = true;
                while (more && !out.gone()) {
                    switch (relay->next(&piece, 500)) {
                    case HttpStreamedCall::Next::Piece: more = renumber.take(piece); break;
                    case HttpStreamedCall::Next::Nothing: break;
                    case HttpStreamedCall::Next::Ended: more = false; break;
                    }
                }
                why = renumber.broken().empty() ? "the connection to " + why_prefix + " ended"
                                                : why_prefix + " sent " + renumber.broken() + ": dropped";
            } else {
                why = relay ? why_prefix + " answered " + std::to_string(head.status) : why_prefix + " does not answer: " + head.error;
            }
        } else {
            why = why_prefix + ": " + why;
        }
        if (out.gone() || !renumber.all_gone(why)) return;
        for (int i = 0; i < 20 && !out.gone(); ++i) std::this_thread::sleep_for(100ms);
    }
}

}  // namespace

HttpResponse answer_fleet_live(StreamService& service, Fleet& fleet, const HttpRequest& req, std::shared_ptr<void> slot) {
    if (req.method != "GET" && req.method != "HEAD") throw ServiceError(405, req.method + " /live: use GET");
    int width = 480;
    const std::vector<LiveTileAsk> asked = parse_live_query(req.query, &width);
    std::map<int, std::pair<std::vector<LiveTileAsk>, std::vector<size_t>>> by_shard;
    for (size_t i = 0; i < asked.size(); ++i) {
        auto& [tiles, places] = by_shard[fleet.owner_of(asked[i].name)];
        tiles.push_back(asked[i]);
        places.push_back(i);
    }
    if (by_shard.size() == 1 && by_shard.begin()->first == fleet.shard_index()) return answer_live_tiles(service, req, slot);

    HttpResponse local;  // this shard's tiles, made before the answer starts (a bad query is a 400 here)
    if (by_shard.count(fleet.shard_index())) {
        HttpRequest mine = req;
        mine.query = live_query(by_shard[fleet.shard_index()].first, width);
        local = answer_live_tiles(service, mine, nullptr);
    }
    HttpResponse r;
    r.content_type = "application/octet-stream";
    r.stream = [&service, &fleet, by_shard, width, local, slot](const HttpBodyWriter& write) {
        SharedWriter out(write);
        std::vector<std::thread> threads;
        for (const auto& [shard, group] : by_shard) {
            if (shard == fleet.shard_index()) {
                threads.emplace_back([&out, places = group.second, stream = local.stream] {
                    Renumberer renumber(out, places);
                    stream([&renumber](const std::string& bytes) { return renumber.take(bytes); });
                });
            } else {
                threads.emplace_back([&fleet, &out, shard = shard, group = group, width] {
                    relay_shard(fleet, shard, group.first, group.second, width, out);
                });
            }
        }
        while (!service.closing()) {
            const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
            if (!out.send(live_message({{"type", "tick"}, {"now", now}}))) break;
            for (int i = 0; i < 10 && !out.gone() && !service.closing(); ++i) std::this_thread::sleep_for(100ms);
        }
        out.finish();  // the page went, or serve is stopping: every thread ends at its next write
        for (std::thread& t : threads) t.join();
    };
    return r;
}

}  // namespace vf
