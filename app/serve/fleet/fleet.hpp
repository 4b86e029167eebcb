// One view of every shard (docs/serve.md, "A fleet of serve processes"): with --peers, this
// process learns which peer serves which shard of the camera list, so that any of them answers for
// the whole fleet: GET /streams?scope=fleet lists every shard's streams (a shard that does not
// answer with its last known ones, marked unreachable), and requests for a stream of another shard
// are passed to the process that serves it and its answer returned.
//
// Peers are the other processes' API addresses (http://HOST:PORT, or https://HOST:PORT when this
// process serves HTTPS) or dns:NAME:PORT, every address NAME resolves to (a StatefulSet's headless
// Service), resolved again on each refresh. A fleet speaks one scheme: with --tls-cert every peer
// is called over HTTPS, its certificate checked against the serve: block's tls-ca (or the system's CAs) and the
// name it was given (NAME for dns: peers), before anything is sent; without it, over HTTP. The list
// may name this process too: it knows itself by a random instance id. Calls between peers are
// signed with this process's own --api-token (every pod has the same one; app/serve/fleet/peer_auth.hpp), which
// never goes on the wire, and carry X-Vfilter-Forwarded-By; a forwarded request is never
// forwarded again; a request goes only to an address of the list that said, on its last refresh,
// that it serves the stream's shard.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/serve/fleet/fleet_membership.hpp"
#include "app/serve/fleet/peer_forwarder.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"

namespace vf {

// One entry of --peers.
struct PeerSource {
    std::optional<HttpAddress> address;  // http(s)://HOST:PORT
    std::string dns_name;                // dns:NAME:PORT
    int dns_port = 0;
    std::string text;                    // as given, for messages
};

// "URL,URL,..." or "dns:NAME:PORT" entries, comma separated; throws Error(Usage) naming the entry.
// https: this process serves HTTPS, and every URL must be https:// (a signed call in clear would
// show its body and answers); otherwise none may be.
std::vector<PeerSource> parse_peers(const std::string& list, bool https = false);

struct FleetOptions {
    std::vector<PeerSource> peers;
    std::string token;                  // signs calls to peers, never sent (this process's --api-token)
    std::shared_ptr<const HttpsTrust> trust;  // set: peers are called over HTTPS and must prove a certificate it trusts
    int shard_index = 0, shard_count = 1;
    std::string pod;                    // this process's name in the fleet's lists (the host name)
    std::chrono::milliseconds refresh_every{2000};
    int timeout_ms = 1500;              // a peer that does not answer within this is unreachable
    ForwardLimits forwards;             // requests passed to peers at once (app/serve/fleet/peer_forwarder.hpp)
    int forward_deadline_ms = 9000;     // a forwarded request's whole time, its wait for a thread included
    const FleetMembership* membership = nullptr;  // who serves what (--store: the live shards); outlives the fleet
};

// The header a forwarded request carries.
inline const char* const kForwardedHeader = "X-Vfilter-Forwarded-By";

class Fleet {
public:
    // local_streams: this process's GET /streams list. file_streams: the names the camera list
    // gives, every shard's (a shard never heard from is listed with these).
    Fleet(FleetOptions options, std::function<nlohmann::json()> local_streams,
          std::function<std::vector<std::string>()> file_streams);
    ~Fleet();
    Fleet(const Fleet&) = delete;
    Fleet& operator=(const Fleet&) = delete;

    bool has_peers() const { return !o_.peers.empty(); }
    int shard_index() const { return o_.shard_index; }
    int shard_count() const { return o_.shard_count; }
    // The shard that serves a stream of this name.
    int owner_of(const std::string& name) const;
    bool serves_here(const std::string& name) const { return owner_of(name) == o_.shard_index; }

    // What GET /fleet/shard answers peers: this process, its shard and its streams.
    nlohmann::json describe_self() const;
    // GET /streams?scope=fleet: {"shard", "pod", "shards": [...], "streams": [...]}. Asks the peers
    // again when the last answers are older than a second, or were asked before a change this
    // process passed on was answered (then it waits for that refresh: the change shows at once).
    nlohmann::json view();
    // Asks the peers again now rather than at the next refresh (a lease that lapsed wants to know
    // whether the store answers them).
    void refresh_soon();
    // The streams the other shards ran when they last answered (those that answer now).
    std::set<std::string> streams_elsewhere() const;
    // GET `target` of every other shard at once, signed, each within the fleet's timeout and
    // `max_body_bytes`: each shard's answer (JSON), or null where none came
    // (app/serve/fleet/fleet_ask.cpp). At most kAsksAtOnce run at a time, so that requests made
    // while a shard hangs cannot hold every HTTP worker: one more throws ServiceError 503.
    static constexpr int kAsksAtOnce = 2;
    std::map<int, nlohmann::json> ask_every_shard(const std::string& target, size_t max_body_bytes = 4 << 20);
    // What the other shards said of their leases in answers to refreshes begun after `since`.
    PeerLeases peer_leases(std::chrono::steady_clock::time_point since) const;
    // Prometheus lines: shards reachable and not, from this process's side.
    std::string metrics() const;

    // The request passed to the process of `shard` (app/serve/fleet/fleet_forward.cpp), answered later
    // (HttpResponse::deferred): the call waits on this fleet's forwarder, never on an HTTP worker,
    // and ends within forward_deadline_ms: the peer's answer, or 502 with the reason when it gave
    // none; 503 with Retry-After at once when the forwarder has no place for it. A streamed answer
    // (preview.mjpg, live.mp4) comes back as it is made once its head has come, and holds `held`
    // (a preview's place) until it ends.
    HttpResponse forward(int shard, const HttpRequest& request, bool streamed, std::shared_ptr<void> held = nullptr);

    // The call that goes to the process of `shard` (its address filled in), or nullopt and *why.
    // Unsigned: sign() it once its method and target are final.
    std::optional<HttpCall> call_to(int shard, std::string* why) const;
    // Signs a call to a peer as it will be sent (app/serve/fleet/peer_auth.hpp), right before it goes.
    void sign(HttpCall& call) const;

private:
    struct ShardState {
        std::optional<HttpAddress> address;  // where it answered last
        std::string pod;
        nlohmann::json streams = nlohmann::json::array();
        bool ever_seen = false, reachable = false;
        bool holds_lease = false;  // as its last answer said (--store)
        std::chrono::steady_clock::time_point seen_at, asked_at;
        std::string error;
    };
    struct Answer;  // one peer's answer to a refresh
    struct Forward;  // one request passed on (app/serve/fleet/fleet_forward.cpp)

    HttpResponse pass_whole(Forward& f);     // on a forwarder thread
    HttpResponse pass_streamed(Forward& f);  // on a forwarder thread: up to the answer's head

    void run();
    void refresh();      // asks every peer, after any refresh under way
    void refresh_now();  // the same, refresh_mutex_ held by the caller
    std::vector<HttpAddress> resolve() const;
    Answer ask(const HttpAddress& at) const;
    std::vector<std::pair<std::string, std::string>> peer_headers() const;

    FleetOptions o_;
    std::function<nlohmann::json()> local_streams_;
    std::function<std::vector<std::string>()> file_streams_;
    std::string instance_;  // random: tells this process apart when the list names it

    std::atomic<int> asks_in_flight_{0};  // ask_every_shard calls under way
    std::mutex refresh_mutex_;  // one refresh at a time
    mutable std::mutex mutex_;
    std::map<int, ShardState> shards_;  // other shards, by index
    std::map<std::string, std::string> warned_;  // address -> the last warning logged for it
    // When the last refresh asked (its lists are as of then), and when a change passed to another
    // shard was last answered: a view asks again until its lists were asked after the change.
    std::chrono::steady_clock::time_point refreshed_at_{}, changed_at_{};
    bool stopping_ = false;
    bool refresh_soon_ = false;
    std::condition_variable wake_;
    std::thread thread_;
    PeerForwarder forwarder_;  // last: its tasks use what is above (stopped first)
};

}  // namespace vf
