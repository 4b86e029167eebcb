#include "app/serve/fleet/fleet.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <random>
#include <set>
#include <sstream>

#include "app/serve/fleet/peer_auth.hpp"
#include "app/serve/serve_config.hpp"
#include "common/error.hpp"
#include "common/metric_set.hpp"

namespace vf {
namespace {

std::string trimmed(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string random_instance() {
    std::random_device rd;
    char text[17];
    std::snprintf(text, sizeof text, "%08x%08x", rd(), rd());
    return text;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 10) / 10;
}

std::string shard_text(int index, int count) { return std::to_string(index) + "/" + std::to_string(count); }

}  // namespace

struct Fleet::Answer {
    HttpAddress at;
    std::string error;  // empty: answered
    std::string instance, pod;
    int index = -1, count = 0;
    nlohmann::json streams;
    bool holds_lease = false;
};

std::vector<PeerSource> parse_peers(const std::string& list, bool https) {
    std::vector<PeerSource> peers;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        item = trimmed(item);
        if (item.empty()) fail(ErrorCategory::Usage, "--peers '" + list + "': an empty entry (entries are separated by commas)");
        PeerSource p;
        p.text = item;
        if (item.rfind("dns:", 0) == 0) {
            const std::string rest = item.substr(4);
            const size_t colon = rest.rfind(':');
            char* end = nullptr;
            const long port = colon == std::string::npos ? 0 : std::strtol(rest.c_str() + colon + 1, &end, 10);
            if (colon == std::string::npos || colon == 0 || *end || port < 1 || port > 65535)
                fail(ErrorCategory::Usage, "--peers: '" + item + "': expected dns:NAME:PORT, e.g. dns:vfilter.vfilter.svc.cluster.local:8080");
            p.dns_name = rest.substr(0, colon);
            p.dns_port = static_cast<int>(port);
        } else {
            HttpAddress a;
            std::string why;
            if (!parse_http_address(item, &a, &why))
                fail(ErrorCategory::Usage, "--peers: " + why + " (or dns:NAME:PORT for every address of a name)");
            if (https && !a.https)
                fail(ErrorCategory::Usage, "--peers: '" + item + "': this process serves HTTPS (--tls-cert), and calls its peers over "
                                           "HTTPS only: name it https://HOST:PORT");
            if (!https && a.https)
                fail(ErrorCategory::Usage, "--peers: '" + item + "': a fleet speaks one scheme, and this process serves plain HTTP: "
                                           "give it --tls-cert and --tls-key too, or name the peer http://");
            p.address = a;
        }
        peers.push_back(std::move(p));
    }
    if (peers.empty()) fail(ErrorCategory::Usage, "--peers: expected http://HOST:PORT or dns:NAME:PORT entries, comma separated");
    return peers;
}

Fleet::Fleet(FleetOptions options, std::function<nlohmann::json()> local_streams, std::function<std::vector<std::string>()> file_streams)
    : o_(std::move(options)),
      local_streams_(std::move(local_streams)),
      file_streams_(std::move(file_streams)),
      instance_(random_instance()),
      forwarder_(o_.forwards) {
    for (int k = 0; k < o_.shard_count; ++k)
        if (k != o_.shard_index) shards_[k];
    thread_ = std::thread([this] { run(); });
}

Fleet::~Fleet() {
    forwarder_.stop();  // the calls waiting for peers end now
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

int Fleet::owner_of(const std::string& name) const {
    if (o_.membership) return o_.membership->owner_of(name);
    return o_.shard_count > 1 ? shard_of(name, o_.shard_count) : 0;
}

std::set<std::string> Fleet::streams_elsewhere() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::set<std::string> names;
    for (const auto& [k, s] : shards_)
        if (s.reachable)
            for (const nlohmann::json& stream : s.streams)
                if (stream.value("state", "") != "standby") names.insert(stream["name"].get<std::string>());  // not run there yet
    return names;
}

PeerLeases Fleet::peer_leases(std::chrono::steady_clock::time_point since) const {
    std::lock_guard<std::mutex> lock(mutex_);
    PeerLeases p;
    p.peers = has_peers() ? o_.shard_count - 1 : 0;
    for (const auto& [k, s] : shards_) {
        if (!s.reachable || s.asked_at <= since) continue;
        ++p.answered_since;
        p.holding += s.holds_lease;
    }
    return p;
}

void Fleet::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        refresh();
        lock.lock();
        wake_.wait_for(lock, o_.refresh_every, [this] { return stopping_ || refresh_soon_; });
        refresh_soon_ = false;
    }
}

void Fleet::refresh_soon() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        refresh_soon_ = true;
    }
    wake_.notify_all();
}

std::vector<std::pair<std::string, std::string>> Fleet::peer_headers() const {
    return {{kForwardedHeader, o_.pod.empty() ? instance_ : o_.pod}};
}

void Fleet::sign(HttpCall& call) const { sign_peer_call(call, o_.token); }

std::vector<HttpAddress> Fleet::resolve() const {
    std::set<HttpAddress> all;
    for (const PeerSource& p : o_.peers) {
        if (p.address) {
            all.insert(*p.address);
            continue;
        }
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* found = nullptr;
        const int rc = getaddrinfo(p.dns_name.c_str(), nullptr, &hints, &found);
        if (rc != 0) {
            // Before the first pod is ready a headless Service's name may not resolve yet.
            spdlog::debug("--peers {}: {}", p.text, gai_strerror(rc));
            continue;
        }
        for (const addrinfo* a = found; a; a = a->ai_next) {
            char text[INET6_ADDRSTRLEN] = {};
            const void* raw = a->ai_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr)
                                                      : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr);
            // Over HTTPS each address must prove a certificate for the name it was found by.
            if (inet_ntop(a->ai_family, raw, text, sizeof text))
                all.insert(HttpAddress{text, p.dns_port, o_.trust != nullptr, o_.trust ? p.dns_name : std::string()});
        }
        freeaddrinfo(found);
    }
    return {all.begin(), all.end()};
}

Fleet::Answer Fleet::ask(const HttpAddress& at) const {
    Answer a;
    a.at = at;
    HttpCall call;
    call.to = at;
    call.target = "/fleet/shard";
    call.headers = peer_headers();
    call.trust = o_.trust;
    call.connect_timeout_ms = o_.timeout_ms;
    call.read_timeout_ms = o_.timeout_ms;
    // The whole answer too: a peer that sends a byte a second would otherwise hold each refresh,
    // and a fleet view waiting on it, for the call's default 8 s.
    call.total_timeout_ms = o_.timeout_ms;
    sign(call);
    const HttpReply r = http_call(call);
    if (r.status == 0) {
        a.error = r.error;
        return a;
    }
    if (r.status != 200) {
        const char* const refused = " (its --api-token differs from this one's, or its clock by more than 30 s)";
        a.error = "answered " + std::to_string(r.status) + (r.status == 401 ? refused : "");
        return a;
    }
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    try {
        a.instance = j.at("instance").get<std::string>();
        a.pod = j.at("pod").get<std::string>();
        a.index = j.at("shard").at("index").get<int>();
        a.count = j.at("shard").at("count").get<int>();
        a.streams = j.at("streams");
        a.holds_lease = j.contains("store") && j["store"].is_object() && j["store"].value("lease", false) == true;
        if (!a.streams.is_array()) throw std::runtime_error("streams");
        for (const nlohmann::json& stream : a.streams)  // each read by name later: checked here, once
            if (!stream.is_object() || !stream.contains("name") || !stream["name"].is_string()) throw std::runtime_error("stream");
    } catch (const std::exception&) {
        a.error = "its answer is not a vfilter serve's (GET /fleet/shard)";
    }
    return a;
}

void Fleet::refresh() {
    std::lock_guard<std::mutex> one_at_a_time(refresh_mutex_);
    refresh_now();
}

void Fleet::refresh_now() {
    const auto asked_at = std::chrono::steady_clock::now();
    const std::vector<HttpAddress> addresses = resolve();
    std::vector<std::future<Answer>> asked;
    for (const HttpAddress& at : addresses) asked.push_back(std::async(std::launch::async, [this, at] { return ask(at); }));
    std::vector<Answer> answers;
    for (auto& f : asked) answers.push_back(f.get());

    std::lock_guard<std::mutex> lock(mutex_);
    std::set<int> answered;
    std::string failures;  // addresses that gave no usable answer, for the shards none answered for
    const auto warn_once = [this](const HttpAddress& at, const std::string& what) {
        std::string& last = warned_[at.url()];
        if (last != what) spdlog::warn("peer {}: {}", at.url(), what);
        last = what;
    };
    for (const Answer& a : answers) {
        if (!a.error.empty()) {
            warn_once(a.at, a.error);
            failures += "; " + a.at.url() + ": " + a.error;
            for (auto& [k, s] : shards_)
                if (s.address && *s.address == a.at) s.error = a.error;
            continue;
        }
        if (a.instance == instance_) continue;  // the list names this process
        if (a.index < 0 || a.index >= a.count) {
            warn_once(a.at, "names shard " + std::to_string(a.index) + " of " + std::to_string(a.count) + ": left out");
            continue;
        }
        if (a.count != o_.shard_count) {
            warn_once(a.at, "serves shard " + shard_text(a.index, a.count) + ", but this process counts " +
                                std::to_string(o_.shard_count) + " shards (a rescale under way?): left out");
            continue;
        }
        if (a.index == o_.shard_index) {
            warn_once(a.at, "serves shard " + shard_text(a.index, a.count) + " too: two processes record the same cameras");
            continue;
        }
        if (answered.count(a.index)) {
            warn_once(a.at, "serves shard " + shard_text(a.index, a.count) + ", as does " + shards_[a.index].address->url() +
                                ": the first one is used");
            continue;
        }
        warned_.erase(a.at.url());
        answered.insert(a.index);
        ShardState& s = shards_[a.index];
        if (!s.reachable) spdlog::info("shard {} answers at {} ({})", shard_text(a.index, a.count), a.at.url(), a.pod);
        s.address = a.at;
        s.pod = a.pod;
        s.streams = a.streams;
        s.ever_seen = s.reachable = true;
        s.holds_lease = a.holds_lease;
        s.seen_at = std::chrono::steady_clock::now();
        s.asked_at = asked_at;
        s.error.clear();
    }
    for (auto& [k, s] : shards_) {
        if (answered.count(k)) continue;
        if (s.reachable) spdlog::warn("shard {} does not answer{}", shard_text(k, o_.shard_count), s.error.empty() ? "" : ": " + s.error);
        s.reachable = false;
        if (s.error.empty() || !s.address) s.error = "no address of --peers answers for this shard" + failures;
    }
    refreshed_at_ = asked_at;  // what the lists say is as of when they were asked
}

nlohmann::json Fleet::describe_self() const {
    return {{"instance", instance_},
            {"pod", o_.pod},
            {"shard", {{"index", o_.shard_index}, {"count", o_.shard_count}}},
            {"streams", local_streams_()},
            {"store", o_.membership ? o_.membership->describe() : nlohmann::json()}};
}

nlohmann::json Fleet::view() {
    bool stale, changed;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        changed = changed_at_ != std::chrono::steady_clock::time_point{} && refreshed_at_ <= changed_at_;
        stale = changed || std::chrono::steady_clock::now() - refreshed_at_ > std::chrono::seconds(1);
    }
    if (changed) {
        // After a change passed on, a refresh under way may have asked before it: this view waits
        // for it, then asks again unless another view has meanwhile (two refreshes at most).
        std::lock_guard<std::mutex> one_at_a_time(refresh_mutex_);
        bool still;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            still = refreshed_at_ <= changed_at_;
        }
        if (still) refresh_now();
    } else if (stale) {
        // Otherwise a view never queues behind another refresh (each waits up to the peers'
        // timeout): while one runs, this view answers from the last lists, so views that come
        // together hold their workers no longer than one refresh.
        std::unique_lock<std::mutex> one_at_a_time(refresh_mutex_, std::try_to_lock);
        if (one_at_a_time.owns_lock()) refresh_now();
    }
    nlohmann::json shards = nlohmann::json::array(), streams = nlohmann::json::array();
    const auto add_streams = [&streams, this](const nlohmann::json& list, int index, const std::string& pod, bool reachable) {
        for (nlohmann::json s : list) {
            if (s.value("state", "") == "standby") continue;  // read by a shard about to take it over: listed where it runs
            s["shard"] = index;
            s["home"] = shard_of(s["name"].get<std::string>(), o_.shard_count);  // where it runs while its shard lives
            s["pod"] = pod;
            s["reachable"] = reachable;
            streams.push_back(std::move(s));
        }
    };
    bool never_heard = false;  // a shard listed from the file's streams: read them (outside the lock)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [k, s] : shards_) never_heard = never_heard || !s.ever_seen;
    }
    const std::vector<std::string> in_file = never_heard ? file_streams_() : std::vector<std::string>();
    const nlohmann::json mine = local_streams_();
    std::lock_guard<std::mutex> lock(mutex_);
    for (int k = 0; k < o_.shard_count; ++k) {
        nlohmann::json entry = {{"index", k}};
        if (k == o_.shard_index) {
            entry["pod"] = o_.pod;
            entry["reachable"] = true;
            entry["self"] = true;
            entry["streams"] = mine.size();
            add_streams(mine, k, o_.pod, true);
            shards.push_back(std::move(entry));
            continue;
        }
        const ShardState& s = shards_[k];
        entry["pod"] = s.pod;
        entry["address"] = s.address ? s.address->url() : "";
        entry["reachable"] = s.reachable;
        entry["self"] = false;
        if (s.ever_seen) entry["last_seen_s"] = seconds_since(s.seen_at);
        if (!s.reachable) entry["error"] = s.error;
        if (s.ever_seen) {
            entry["streams"] = s.streams.size();
            add_streams(s.streams, k, s.pod, s.reachable);
        } else {
            // Never heard from: the camera list says which streams it should have.
            nlohmann::json expected = nlohmann::json::array();
            for (const std::string& name : in_file)
                if (owner_of(name) == k) expected.push_back({{"name", name}, {"state", "unknown"}});
            entry["streams"] = expected.size();
            add_streams(expected, k, "", false);
        }
        shards.push_back(std::move(entry));
    }
    std::sort(streams.begin(), streams.end(), [](const nlohmann::json& a, const nlohmann::json& b) { return a["name"] < b["name"]; });
    return {{"shard", {{"index", o_.shard_index}, {"count", o_.shard_count}}}, {"pod", o_.pod}, {"shards", shards}, {"streams", streams}};
}

std::string Fleet::metrics() const {
    MetricSet set;
    std::lock_guard<std::mutex> lock(mutex_);
    for (int k = 0; k < o_.shard_count; ++k) {
        const bool up = k == o_.shard_index || shards_.at(k).reachable;
        set.add("vfilter_fleet_shard_up", "gauge", "1 while the shard answers this process (--peers), 0 while it does not.", up ? 1 : 0,
                metric_label("shard", std::to_string(k)));
    }
    if (o_.membership && o_.membership->has_store()) {
        const FleetMembership& m = *o_.membership;
        set.add("vfilter_fleet_lease_held", "gauge", "1 while this shard holds its lease in the store (--store), 0 while it does not.",
                m.holds_lease() ? 1 : 0);
        set.add("vfilter_fleet_takeovers_total", "counter", "Streams of another shard started here because that shard's lease lapsed.",
                static_cast<double>(m.takeovers()));
        set.add("vfilter_fleet_handbacks_total", "counter", "Streams of another shard stopped here because that shard is live again.",
                static_cast<double>(m.handbacks()));
        set.add("vfilter_fleet_waiting_for_room", "gauge",
                "Streams this shard should run that wait for room (serve: max-streams, its decoders' capacity).",
                static_cast<double>(m.waiting_for_room()));
        set.add("vfilter_fleet_fenced", "gauge", "1 while this shard serves nothing because its lease lapsed and the fleet may go on without it.",
                m.mode() == FleetMembership::Mode::Fenced ? 1 : 0);
    }
    const std::map<int, PeerForwarder::Counts> forwards = forwarder_.counts();
    for (int k = 0; k < o_.shard_count; ++k) {
        if (k == o_.shard_index) continue;
        const auto it = forwards.find(k);
        const PeerForwarder::Counts c = it == forwards.end() ? PeerForwarder::Counts{} : it->second;
        set.add("vfilter_fleet_forwards_pending", "gauge", "Requests passed to the shard that wait for its answer or for a forwarder thread.",
                c.pending, metric_label("shard", std::to_string(k)));
        set.add("vfilter_fleet_forwards_refused_total", "counter",
                "Requests for the shard refused at once (503) because the forwarder had no place for them.", static_cast<double>(c.refused),
                metric_label("shard", std::to_string(k)));
    }
    return set.text();
}

std::optional<HttpCall> Fleet::call_to(int shard, std::string* why) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = shards_.find(shard);
    if (it == shards_.end() || !it->second.address) {
        *why = "no address of --peers has answered for shard " + shard_text(shard, o_.shard_count) + " yet";
        return std::nullopt;
    }
    HttpCall call;
    call.to = *it->second.address;
    call.headers = peer_headers();
    call.trust = o_.trust;
    call.connect_timeout_ms = o_.timeout_ms;
    return call;
}

}  // namespace vf
