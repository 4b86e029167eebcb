#include "app/serve/serve_loop.hpp"

#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/free_memory.hpp"
#include "common/http_client.hpp"
#include "common/redact.hpp"

namespace vf {

namespace {

// How often malloc's free pages go back (common/free_memory.hpp). Between two trims the resident
// size climbs at a steady rate as the arenas' free pages are touched again, faster with more cores
// busy; a trim a minute let that saw grow over a soak on many cores. Every 10 s it is a fraction of
// that, for no measurable CPU time or page faults (docs/benchmarks.md, "Unattended").
constexpr auto kFreeMemoryTrimPeriod = std::chrono::seconds(10);

// The whole file, or "" when it cannot be read (load() then says why).
std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Streams added through the API that another shard serves now (the shard count changed since):
// handed to that shard through its API, and forgotten here once it has them.
void hand_over_streams(ApiChanges& changes, Fleet& fleet) {
    for (const nlohmann::json& entry : changes.added_elsewhere(fleet.shard_index(), fleet.shard_count())) {
        const std::string name = entry["name"];
        const int owner = fleet.owner_of(name);
        std::string why;
        std::optional<HttpCall> call = fleet.call_to(owner, &why);
        if (!call) continue;  // asked again later
        call->method = "POST";
        call->target = "/streams";
        call->body = entry.dump();
        call->content_type = "application/json";
        fleet.sign(*call);
        const HttpReply r = http_call(*call);
        if (r.status == 201 || r.status == 409) {
            spdlog::info("stream '{}', added through the API, belongs to shard {}/{} now: handed over ({})", name, owner,
                         fleet.shard_count(), r.status == 201 ? "started there" : "it had one of that name");
            changes.forget(name);
        } else if (r.status != 0) {
            spdlog::warn("stream '{}', added through the API, belongs to shard {}/{} now, which refused it ({}): kept in its api-state file",
                         name, owner, fleet.shard_count(), r.status);
        }
    }
}

// With a store: the streams this shard serves follow the live shards and its lease (a lost
// shard's streams start here, a returning one's stop here, all stop when fenced).
// Each stream started or stopped by a change of the fleet, with the reason; counted for /metrics.
void log_moves(FleetMembership& m, const std::set<std::string>& before, const std::set<std::string>& after) {
    int64_t taken = 0, handed = 0;
    for (const std::string& n : after)
        if (!before.count(n) && shard_of(n, m.count()) != m.index()) {
            ++taken;
            spdlog::info("stream '{}' of shard {}/{} runs here: that shard's lease lapsed", n, shard_of(n, m.count()), m.count());
        }
    for (const std::string& n : before) {
        if (after.count(n)) continue;
        const int owner = m.owner_of(n);
        if (owner >= 0 && owner != m.index()) {
            handed += shard_of(n, m.count()) == owner;
            spdlog::info("stream '{}' stopped here: shard {}/{} serves it now", n, owner, m.count());
        } else if (owner < 0) {
            spdlog::warn("stream '{}' stopped here: this shard is fenced (its lease lapsed)", n);
        }
    }
    m.count_moves(taken, handed);
}

// Room for cameras taken over from a lost shard: the decoder capacity left (measured where serve
// places decoding by load: GPU machines), in 1080p30 cameras, each counted as one until its input
// opens; no limit where serve does not measure it.
double room_for_takeovers(const StreamService& service) {
    const nlohmann::json left = service.capacity_left();
    if (!left.is_object() || !left.contains("total") || !left["total"].is_number()) return std::numeric_limits<double>::infinity();
    return left["total"].get<double>();
}

// The claims this shard wants: the streams it should claim, and those it still runs (let go
// only once stopped). Asks the store again when they changed or some are still awaited.
void claim_streams(const ServeLoop& loop) {
    FleetMembership& m = *loop.membership;
    const std::vector<std::string> names = loop.names();
    std::set<std::string> wanted = loop.service.names();
    // A take-over starts what fits, no more than the process may run (serve: max-streams) and
    // than its decoders carry; the rest wait for room, unclaimed, rather than every camera
    // dropping frames. Those already claimed go first, so that the choice does not churn.
    std::vector<std::string> candidates;
    for (const std::string& n : names)
        if (!wanted.count(n) && m.should_claim(n)) candidates.push_back(n);
    std::stable_partition(candidates.begin(), candidates.end(), [&m](const std::string& n) { return m.holds_claim(n); });
    double room = room_for_takeovers(loop.service);
    int64_t waiting = 0;
    for (const std::string& n : candidates) {
        const bool own = shard_of(n, m.count()) == m.index();
        if (wanted.size() >= static_cast<size_t>(loop.settings.max_streams) || (!own && room < 1)) {
            ++waiting;
            continue;
        }
        wanted.insert(n);
        if (!own) room -= 1;
    }
    if (waiting != m.waiting_for_room())
        spdlog::log(waiting > 0 ? spdlog::level::warn : spdlog::level::info,
                    "fleet: {} stream(s) this shard serves wait for room (serve: max-streams, decoder capacity)", waiting);
    m.set_waiting_for_room(waiting);
    if (m.set_wanted(std::move(wanted)) || m.awaits_claims(names)) m.look_again();
}

void follow_the_fleet(const ServeLoop& loop) {
    FleetMembership& m = *loop.membership;
    const PeerLeases peers = loop.fleet ? loop.fleet->peer_leases(m.lapsed_at()) : PeerLeases{};
    const bool elsewhere_changed = loop.fleet && m.set_elsewhere(loop.fleet->streams_elsewhere());
    const bool changed = m.update(peers) || elsewhere_changed;
    // While a lapsed lease waits for the peers' word, they are asked again and again: a peer whose
    // own call to the store is still under way says it holds its lease until that call fails.
    if (m.awaits_peers() && loop.fleet) loop.fleet->refresh_soon();
    const bool pulled = loop.stored_changes && loop.stored_changes->take_pulled();  // another shard's API changes
    if (!changed && !pulled) return;
    try {
        const std::set<std::string> before = loop.service.names();
        loop.service.apply(loop.rebuild());  // the API's changes over the file: streams added through it stay
        log_moves(m, before, loop.service.names());
        spdlog::info("fleet: shard {}/{} {}: {} stream(s) here now", m.index(), m.count(), FleetMembership::mode_name(m.mode()),
                     loop.service.size());
    } catch (const std::exception& e) {
        spdlog::error("fleet: the streams of shard {}/{} could not follow the fleet: {}", m.index(), m.count(), redact_credentials(e.what()));
    }
}

}  // namespace

std::string status_line(const StreamService& service) {
    std::map<std::string, int> by_state;
    for (const auto& s : service.list()) ++by_state[s["state"].get<std::string>()];
    std::string line = std::to_string(service.size()) + " stream(s)";
    const char* separator = ": ";
    for (const auto& [state, n] : by_state) {
        line += separator + std::to_string(n) + " " + state;
        separator = ", ";
    }
    return line;
}

ServeEnd serve_until_stopped(const ServeLoop& loop) {
    const ServeOptions& o = loop.options;
    const ServeSettings& settings = loop.settings;
    StreamService& service = loop.service;
    ServiceManager& manager = loop.manager;
    const bool demo = o.demo_streams > 0;
    // What the file said when last applied: watch-config applies it again only once it changes
    // (a ConfigMap volume is replaced by a symlink swap, so its content is compared, not its mtime).
    std::string applied_text = demo ? std::string() : file_text(o.config);
    const std::string started_block = serve_block_text(applied_text);
    const auto reload = [&](const char* why) {
        if (demo) return;  // no file to read again
        applied_text = file_text(o.config);
        if (serve_block_text(applied_text) != started_block)
            spdlog::warn("{}: the file's serve: block changed; it applies when serve starts again", why);
        manager.reloading();
        try {
            service.apply(loop.load());
            spdlog::info("{}: {} applied; {} stream(s)", why, o.config, service.size());
        } catch (const std::exception& e) {
            spdlog::error("{}: {}; nothing changed", why, redact_credentials(e.what()));
        }
        manager.ready(status_line(service));
    };
    auto next_look = std::chrono::steady_clock::now();
    auto next_status = next_look + std::chrono::seconds(10);
    auto next_trim = next_look + kFreeMemoryTrimPeriod;
    auto next_handover = next_look + std::chrono::seconds(3);
    ServeEnd end;
    int& stops = end.stops;
    for (;;) {
        // Once the streams can only end (no API to add one, or stopping), their end is looked for
        // every 20 ms: a run of files ended up to 200 ms after its last stream.
        // Every 20 ms too while a lapsed lease waits for the peers' word (a fence decided late
        // leaves its streams less time to finish before another shard may start them).
        const bool deciding = loop.membership && loop.membership->awaits_peers();
        const int sig = loop.signals.next(std::chrono::milliseconds(!loop.has_api || stops > 0 || deciding ? 20 : 200));
        manager.keep_alive();
        if (manager.present() && stops == 0 && std::chrono::steady_clock::now() >= next_status) {
            next_status = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            manager.status(status_line(service));
        }
        if (std::chrono::steady_clock::now() >= next_trim) {  // resident memory flat over months (common/free_memory.hpp)
            next_trim = std::chrono::steady_clock::now() + kFreeMemoryTrimPeriod;
            const auto began = std::chrono::steady_clock::now();
            return_free_memory_to_system();
            spdlog::debug("free memory given back in {:.1f} ms",
                          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
        }
        const bool stored = loop.membership && loop.membership->has_store();  // the store shares the API's changes instead
        if (loop.fleet && loop.fleet->has_peers() && !stored && stops == 0 && std::chrono::steady_clock::now() >= next_handover) {
            next_handover = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            hand_over_streams(loop.changes, *loop.fleet);
        }
        if (loop.membership && loop.membership->has_store() && stops == 0) {
            follow_the_fleet(loop);
            claim_streams(loop);
        }
        if (!demo && settings.watch_config_s > 0 && stops == 0 && std::chrono::steady_clock::now() >= next_look) {
            next_look = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(settings.watch_config_s));
            if (file_text(o.config) != applied_text) reload("watch-config: the file changed");
        }
        if (sig == SIGHUP) {
            reload("SIGHUP");
        } else if (sig == SIGINT || sig == SIGTERM) {
            ++stops;
            if (stops > 2) _exit(130);
            spdlog::info(stops == 1 ? "stopping: every stream finishes its output (signal again to finish at once)"
                                    : "stopping at once: frames in flight are discarded");
            if (stops == 1) manager.stopping();
            service.stop_all(stops > 1);
        }
        const bool all_ended = service.all_ended();
        if (stops > 0 && all_ended) break;
        if (!loop.has_api && all_ended) {  // nothing left to do and nobody can add a stream
            end.ended_on_their_own = true;
            break;
        }
    }
    return end;
}

}  // namespace vf
