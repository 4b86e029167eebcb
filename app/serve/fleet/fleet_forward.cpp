// Fleet::forward (app/serve/fleet/fleet.hpp): a request for another shard's stream, passed to the process that
// serves it. The HTTP worker that routed the request only hands it to the fleet's forwarder
// (app/serve/fleet/peer_forwarder.hpp) and is free again; a forwarder thread makes the call within the
// forward's deadline, counted from that hand-over, and completes the answer. Of a streamed answer
// (preview.mjpg, live.mp4) only the body, relayed while the viewer watches, takes a worker.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "app/serve/fleet/fleet.hpp"
#include "common/redact.hpp"

namespace vf {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxForwardedErrorBody = 64 << 10;  // a streamed call's error answer, read whole

HttpResponse forward_error(int status, const std::string& why) {
    return {status, "application/json", nlohmann::json{{"error", redact_credentials(why)}}.dump(2) + "\n"};
}

int ms_until(Clock::time_point t) {
    return static_cast<int>(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count()));
}

// The body of a streamed call's error answer (short), read until the forward's deadline.
std::string short_body(HttpStreamedCall& relay, Clock::time_point deadline, const HttpCallStop& stop) {
    std::string body, piece;
    while (body.size() < kMaxForwardedErrorBody && !stop.stopped()) {
        const int left = ms_until(deadline);
        if (left == 0) break;
        const HttpStreamedCall::Next next = relay.next(&piece, std::min(left, 200));
        if (next == HttpStreamedCall::Next::Ended) break;
        if (next == HttpStreamedCall::Next::Piece) body += piece;
    }
    return body;
}

}  // namespace

struct Fleet::Forward {
    int shard = 0;
    HttpCall call;
    std::string where;  // "shard 1/3 (http://HOST:PORT)", for messages
    std::string path;   // as asked, for the log
    Clock::time_point deadline;
};

HttpResponse Fleet::forward(int shard, const HttpRequest& req, bool streamed, std::shared_ptr<void> held) {
    std::string why;
    std::optional<HttpCall> call = call_to(shard, &why);
    const std::string owner = "shard " + std::to_string(shard) + "/" + std::to_string(o_.shard_count);
    if (!call) return forward_error(503, "this is served by " + owner + ", and " + why);
    auto f = std::make_shared<Forward>();
    f->shard = shard;
    f->call = std::move(*call);
    f->call.method = req.method;
    f->call.target = req.path + (req.query.empty() ? "" : "?" + req.query);
    f->call.body = req.body;
    f->call.content_type = req.content_type.empty() ? "application/json" : req.content_type;
    f->where = owner + " (" + f->call.to.url() + ")";
    f->path = req.path;
    HttpResponse later;
    later.deferred = [this, f, streamed, held](HttpCompletion done) {
        f->deadline = Clock::now() + std::chrono::milliseconds(o_.forward_deadline_ms);
        const PeerForwarder::Taken taken = forwarder_.try_run(f->shard, [this, f, streamed, held, done] {
            HttpResponse answer = streamed ? pass_streamed(*f) : pass_whole(*f);
            if (answer.stream && held) answer.stream = [held, body = std::move(answer.stream)](const HttpBodyWriter& write) { body(write); };
            if (f->call.method != "GET" && f->call.method != "HEAD")
                spdlog::info("api: {} {} -> {} (passed to {})", f->call.method, f->path, answer.status, f->where);
            done(std::move(answer));
        });
        if (taken == PeerForwarder::Taken::Yes) return;
        const ForwardLimits& limits = forwarder_.limits();
        HttpResponse busy = forward_error(
            503, taken == PeerForwarder::Taken::ShardFull
                     ? "this is served by " + f->where + ", which has " + std::to_string(limits.per_shard) +
                           " requests passed to it waiting for its answer already"
                     : "this is served by " + f->where + ", and this process has " + std::to_string(limits.threads + limits.waiting) +
                           " requests passed to other shards waiting already");
        // A place comes free within a forward's deadline at the latest.
        busy.headers.push_back({"Retry-After", std::to_string((o_.forward_deadline_ms + 999) / 1000)});
        done(std::move(busy));
    };
    return later;
}

HttpResponse Fleet::pass_whole(Forward& f) {
    const int left = ms_until(f.deadline);
    if (left == 0) return forward_error(504, "this is served by " + f.where + ", and no forwarder thread was free in time");
    // The whole call, a DELETE's wait for the stream's output to be finalised included, ends
    // within what is left of the forward's deadline: a peer that hangs holds a forwarder thread
    // no longer.
    f.call.read_timeout_ms = left;
    f.call.total_timeout_ms = left;
    sign(f.call);
    const HttpReply r = http_call(f.call, forwarder_.calls());
    if (r.status == 0) return forward_error(502, "this is served by " + f.where + ", which did not answer: " + r.error);
    HttpResponse answer{r.status, r.content_type, r.body, r.headers};
    answer.headers.push_back({"X-Vfilter-Shard", std::to_string(f.shard)});
    if (f.call.method != "GET" && f.call.method != "HEAD") {
        std::lock_guard<std::mutex> lock(mutex_);
        changed_at_ = std::chrono::steady_clock::now();  // the fleet list asks again: it shows the change at once
    }
    return answer;
}

HttpResponse Fleet::pass_streamed(Forward& f) {
    const int left = ms_until(f.deadline);
    if (left == 0) return forward_error(504, "this is served by " + f.where + ", and no forwarder thread was free in time");
    f.call.read_timeout_ms = 10000;  // every streamed answer sends something at least every 5 s
    f.call.total_timeout_ms = left;  // up to the answer's head
    sign(f.call);
    auto [relay, head] = HttpStreamedCall::open(f.call, forwarder_.calls());
    if (!relay) return forward_error(502, "this is served by " + f.where + ", which did not answer: " + head.error);
    HttpResponse answer{head.status, head.content_type, "", head.headers};
    answer.headers.push_back({"X-Vfilter-Shard", std::to_string(f.shard)});
    std::shared_ptr<HttpStreamedCall> shared(std::move(relay));
    if (head.status != 200) {
        answer.body = short_body(*shared, f.deadline, *forwarder_.calls());
        return answer;
    }
    answer.stream = [shared](const HttpBodyWriter& write) {
        std::string piece;
        for (;;) {
            switch (shared->next(&piece, 1000)) {
            case HttpStreamedCall::Next::Piece:
                if (!write(piece)) return;
                break;
            case HttpStreamedCall::Next::Nothing:
                if (!write("")) return;  // is the viewer still there?
                break;
            case HttpStreamedCall::Next::Ended: return;
            }
        }
    };
    return answer;
}

}  // namespace vf
