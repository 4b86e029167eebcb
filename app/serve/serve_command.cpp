#include "app/serve/serve_command.hpp"

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <sstream>

#include "app/run/stop_signals.hpp"
#include "app/serve/api_changes.hpp"
#include "app/serve/client_access.hpp"
#include "app/serve/fleet/etcd_store.hpp"
#include "app/serve/fleet/fleet.hpp"
#include "app/serve/fleet/fleet_membership.hpp"
#include "app/serve/fleet/store_changes.hpp"
#include "app/serve/http/api_guard.hpp"
#include "app/serve/http/control_api.hpp"
#include "app/serve/serve_loop.hpp"
#include "app/serve/service_manager.hpp"
#include "app/serve/stream_service.hpp"
#include "app/serve/webhook_sender.hpp"
#include "common/error.hpp"
#include "common/free_memory.hpp"
#include "common/http_server.hpp"
#include "common/redact.hpp"
#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {

std::vector<int> parse_gpus(const std::string& text, int available) {
    std::vector<int> gpus;
    if (text == "all") {
        for (int i = 0; i < available; ++i) gpus.push_back(i);
        return gpus;
    }
    if (text.empty() || text.back() == ',') fail(ErrorCategory::Usage, "--gpus '" + text + "': expected all, or GPU numbers such as 0,1");
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        char* end = nullptr;
        const long g = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end || g < 0 || g > 1023) fail(ErrorCategory::Usage, "--gpus '" + text + "': expected all, or GPU numbers such as 0,1");
        if (available > 0 && g >= available)
            fail(ErrorCategory::Usage, "--gpus '" + text + "': GPU " + std::to_string(g) + " does not exist (CUDA sees " + std::to_string(available) + ")");
        for (const int seen : gpus)
            if (seen == g) fail(ErrorCategory::Usage, "--gpus '" + text + "': GPU " + std::to_string(g) + " is listed twice");
        gpus.push_back(static_cast<int>(g));
    }
    if (gpus.empty()) fail(ErrorCategory::Usage, "--gpus '" + text + "': expected all, or GPU numbers such as 0,1");
    return gpus;
}

bool is_loopback_address(const std::string& address) {
    in_addr a{};
    if (inet_pton(AF_INET, address.c_str(), &a) != 1) return false;
    return (ntohl(a.s_addr) >> 24) == 127;
}

namespace {

// This process's name in the fleet's lists: a StatefulSet pod's host name is the pod's name.
std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "";
    return name;
}

// The admin token from its option or file, checked (16+ characters).
void resolve_admin_token(ServeOptions& o, const ServeSettings& settings) {
    if (!settings.api_token_file.empty()) {
        if (!o.api_token.empty()) fail(ErrorCategory::Usage, "give the admin token once: --api-token or api-token-file");
        o.api_token = read_token_file(settings.api_token_file, "api-token-file");
    }
    if (!o.api_token.empty()) check_token(o.api_token, "--api-token");
}

// The cameras' events to a webhook (serve: block's webhook and webhook-secret-file), checked at
// start; none without a URL. A receiver checks the signature: no URL goes without a secret.
std::unique_ptr<WebhookSender> make_webhook(const ServeSettings& settings) {
    if (settings.webhook.empty()) {
        if (!settings.webhook_secret_file.empty()) fail(ErrorCategory::Usage, "webhook-secret-file without a webhook: set webhook: URL too");
        return nullptr;
    }
    if (settings.webhook_secret_file.empty())
        fail(ErrorCategory::Usage, "webhook needs webhook-secret-file: its receiver checks each event's signature with that secret");
    WebhookSettings w;
    w.url = settings.webhook;
    w.secret = read_token_file(settings.webhook_secret_file, "webhook-secret-file");
    if (parse_webhook_url(w.url, "webhook").to.https) w.trust = std::make_shared<const HttpsTrust>(settings.tls_ca, "tls-ca");
    spdlog::info("events: POSTed to {} (signed)", redact_credentials(w.url));
    return std::make_unique<WebhookSender>(std::move(w));
}

// The viewer token, from VFILTER_VIEWER_TOKEN or the serve: block's viewer-token-file, checked.
std::string viewer_token_of(const ServeOptions& o, const ServeSettings& settings) {
    const char* from_environment = std::getenv("VFILTER_VIEWER_TOKEN");
    std::string viewer = from_environment ? from_environment : "";
    if (!settings.viewer_token_file.empty()) {
        if (!viewer.empty()) fail(ErrorCategory::Usage, "give the viewer token once: VFILTER_VIEWER_TOKEN or viewer-token-file");
        viewer = read_token_file(settings.viewer_token_file, "viewer-token-file");
    }
    if (viewer.empty()) return viewer;
    check_token(viewer, "the viewer token");
    if (o.api_token.empty()) fail(ErrorCategory::Usage, "a viewer token needs an admin token too (--api-token or api-token-file)");
    if (viewer == o.api_token) fail(ErrorCategory::Usage, "the viewer token must differ from the admin token");
    return viewer;
}

// The file's serve: block (none for --demo) under the environment's VFILTER_* variables.
ServeSettings settings_of(const ServeOptions& o) {
    ServeSettings settings = o.demo_streams > 0 ? ServeSettings{} : load_serve_settings(o.config);
    apply_serve_environment(settings, [](const char* name) { return std::getenv(name); });
    if (!settings.tls_ca.empty() && o.tls_cert.empty())
        fail(ErrorCategory::Usage, "serve: tls-ca needs --tls-cert: it checks the peers the API calls over HTTPS");
    return settings;
}

// Every stream of the list, every shard's (the fleet view lists them), and where each records
// (its recordings listed): set again at each load, and kept up with the streams the API adds and
// removes in between (the next load's list holds them the same way: ApiChanges).
class StreamNames {
public:
    void set(const ServeConfig& whole) {
        std::lock_guard<std::mutex> lock(mutex_);
        names_.clear();
        sources_.clear();
        for (const StreamConfig& s : whole.streams) {
            names_.push_back(s.name);
            sources_[s.name] = recordings_source(s);
        }
    }
    // A stream added through the API (`now`), or removed through it (null).
    void changed(const std::string& name, const StreamConfig* now) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto listed = std::find(names_.begin(), names_.end(), name);
        if (!now) {
            if (listed != names_.end()) names_.erase(listed);
            sources_.erase(name);
            return;
        }
        if (listed == names_.end()) names_.push_back(name);
        sources_[name] = recordings_source(*now);
    }
    std::vector<std::string> get() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return names_;
    }
    std::optional<RecordingsSource> source(const std::string& name) const {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = sources_.find(name);
        return it == sources_.end() ? std::nullopt : std::optional<RecordingsSource>(it->second);
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> names_;
    std::map<std::string, RecordingsSource> sources_;
};

// `serve shard-plan COUNT`: which pod serves each stream; nothing starts.
void print_shard_plan(const ServeOptions& o) {
    const bool demo = o.demo_streams > 0;
    const ServeConfig all = demo ? demo_serve_config(o.demo_streams) : load_serve_config(o.config);
    for (const StreamConfig& s : all.streams) std::printf("%s %d\n", s.name.c_str(), shard_of(s.name, o.shard_plan));
}

// The other shards' APIs (--peers), checked; none without --peers.
std::vector<PeerSource> peers_of(const ServeOptions& o, bool https) {
    std::vector<PeerSource> peers;
    if (!o.peers.empty()) {
        if (o.api_port < 0) fail(ErrorCategory::Usage, "--peers needs --api-port: the processes of a fleet talk through their APIs");
        peers = parse_peers(o.peers, https);
    }
    return peers;
}

// Who serves which stream: the shard's own streams, or with --store those it owns among the live
// shards (its lease taken here, within a call's time: the streams start as the store answers).
std::unique_ptr<FleetMembership> make_membership(const ServeOptions& o, const ServeSettings& settings,
                                                 const std::shared_ptr<EtcdStore>& store) {
    if (!store) return std::make_unique<FleetMembership>(o.shard_index, o.shard_count);
    ShardLeaseSettings lease;
    lease.address = host_name();
    lease.ttl_s = settings.store_lease_s;
    lease.prefix = settings.store_prefix;
    auto membership = std::make_unique<FleetMembership>(o.shard_index, o.shard_count, store, lease);
    membership->update(PeerLeases{o.peers.empty() ? 0 : o.shard_count - 1, 0, 0});
    spdlog::info("fleet store {} ({} member(s), keys under {}): shard {}/{} {}, lease {} s", redact_credentials(o.store), store->members().size(),
                 settings.store_prefix, o.shard_index, o.shard_count, FleetMembership::mode_name(membership->mode()), settings.store_lease_s);
    return membership;
}

// The service's limits and shard, and the GPUs its GPU streams are placed on (--gpus).
void configure_service(StreamService& service, const ServeOptions& o, const ServeSettings& settings, const FleetMembership& membership) {
    service.set_max_streams(settings.max_streams);
    service.set_max_preview_encoders(settings.max_preview_encoders);
    service.set_watch(settings.watch);
    service.set_clips_memory(settings.clips_memory);
    if (membership.has_store())
        service.set_shard(o.shard_index, o.shard_count, [&membership](const std::string& name) { return membership.admits(name); });
    else
        service.set_shard(o.shard_index, o.shard_count);
#ifdef VF_HAVE_CUDA
    const int available = gpu_count();
#else
    const int available = 0;
#endif
    const std::vector<int> gpus = parse_gpus(o.gpus, available);
    if (gpus.size() > 1) spdlog::info("GPU streams are placed on GPUs {} (fewest streams first)", o.gpus);
    if (available == 0 && o.gpus != "all") spdlog::warn("--gpus {}: no GPU answers here; streams will run on the CPU", o.gpus);
    if (settings.nvdec_share && !gpus.empty())
        spdlog::info("serve: nvdec-share on: H.264 streams of one size share a GPU's NVDEC decoders");
    service.set_gpus(gpus, decoder_capacity_of(settings));
}

// This process's place in the fleet: its shard, the other shards (--peers) and the lists it shows.
std::unique_ptr<Fleet> make_fleet(const ServeOptions& o, const std::vector<PeerSource>& peers, const std::shared_ptr<const HttpsTrust>& peer_trust,
                                  StreamService& service, const StreamNames& names, const FleetMembership& membership) {
    FleetOptions fo;
    fo.membership = &membership;
    fo.peers = peers;
    fo.token = o.api_token;
    fo.trust = peer_trust;
    fo.shard_index = o.shard_index;
    fo.shard_count = o.shard_count;
    fo.pod = host_name();
    auto fleet = std::make_unique<Fleet>(fo, [&service] { return service.list(); }, [&names] { return names.get(); });
    if (!peers.empty()) spdlog::info("fleet: shard {}/{} of {}, peers {}", o.shard_index, o.shard_count, fo.pod, o.peers);
    return fleet;
}

// Says where the streams added through the API that another shard serves now go.
void report_streams_added_elsewhere(ApiChanges& changes, const ServeOptions& o, bool have_peers) {
    for (const nlohmann::json& entry : changes.added_elsewhere(o.shard_index, o.shard_count)) {
        const std::string name = entry["name"];
        const std::string where = std::to_string(shard_of(name, o.shard_count)) + "/" + std::to_string(o.shard_count);
        if (have_peers)
            spdlog::info("stream '{}', added through the API, belongs to shard {} now: handed over once it answers", name, where);
        else
            spdlog::warn("stream '{}', added through the API, belongs to shard {} now and is not served here; without --peers it "
                         "cannot be handed over: add it there, or to the config file",
                         name, where);
    }
}

// The control API and the HTTP(S) server that answers with it (--api-port); neither without one.
struct ControlServer {
    std::unique_ptr<ControlApi> control;  // outlives the server that calls it
    std::unique_ptr<HttpServer> server;
};

ControlServer start_control_api(const ServeOptions& o, const ServeSettings& settings, const std::string& viewer_token,
                                const ClientAccess& access, StreamService& service, Fleet* fleet, ApiChanges* changes,
                                StreamNames& names) {
    ControlServer api;
    if (o.api_port < 0) return api;
    HttpServerOptions ho;
    ho.bind = o.api_bind;
    ho.port = o.api_port;
    ho.option = "--api-port";
    ho.max_body_bytes = 64 * 1024;
    ho.tls_cert_file = o.tls_cert;
    ho.tls_key_file = o.tls_key;
    ControlApiOptions ao;
    ao.token = o.api_token;
    ao.viewer_token = viewer_token;
    ao.max_preview_streams = settings.max_previews;
    ao.bind = o.api_bind;
    ao.hosts = settings.api_hosts;
    ao.access = access;
    ao.recordings = [&names](const std::string& name) { return names.source(name); };
    ao.list_changed = [&names](const std::string& name, const StreamConfig* now) { names.changed(name, now); };
    ho.workers = control_api_workers(ao);
    api.control = std::make_unique<ControlApi>(service, ao, fleet, changes);
    // Refused on their head, before a body is read; the probes never wait behind workers.
    ho.screen = [api_guard = api.control.get()](const HttpRequest& head) { return api_guard->screen(head); };
    ho.inline_paths = {"/healthz", "/readyz"};
    api.server = std::make_unique<HttpServer>(ho, [api_answer = api.control.get()](const HttpRequest& r) { return api_answer->answer(r); });
    spdlog::info("control API: {0}://{1}:{2}/streams, page: {0}://{1}:{2}/{3}", o.tls_cert.empty() ? "http" : "https", o.api_bind,
                 api.server->port(), ao.token.empty() ? "" : " (token required)");
    return api;
}

// After the streams: the serve: block's stats-json written, each stream's end logged; the exit code.
int exit_code_after(StreamService& service, const ServeSettings& settings, const ServeEnd& end) {
    const nlohmann::json summary = service.final_stats();
    if (!settings.stats_json.empty()) {
        std::ofstream f(settings.stats_json, std::ios::trunc);
        f << redact_credentials(summary.dump(2)) << "\n";
        if (!f) fail(ErrorCategory::Output, "writing stats-json file '" + settings.stats_json + "' failed");
    }
    int failed = 0;
    for (const auto& [name, s] : summary.items()) {
        if (s["state"] == "failed") {
            ++failed;
            spdlog::warn("stream '{}' failed: {}", name, s["last_error"].get<std::string>());
        } else {
            spdlog::info("stream '{}': {} frames written", name, s["frames_out"].get<int64_t>());
        }
    }
    if (end.stops > 1) return 130;
    return end.ended_on_their_own && failed > 0 ? exit_code_for(ErrorCategory::Damaged) : 0;
}

}  // namespace

int run_serve(const ServeOptions& options) {
    // Before any thread: fewer free pages kept under load (common/free_memory.hpp).
    limit_malloc_arenas();
    give_large_blocks_back_at_free();
    ServeOptions o = options;
    const bool demo = o.demo_streams > 0;
    if (demo && o.api_port < 0) o.api_port = kDemoApiPort;
    const ServeSettings settings = settings_of(o);
    resolve_admin_token(o, settings);
    if (o.api_port >= 0 && !is_loopback_address(o.api_bind) && o.api_token.empty())
        fail(ErrorCategory::Usage, "--api-bind " + o.api_bind + " exposes the control API beyond this machine: give it a token "
                                   "(--api-token or VFILTER_API_TOKEN)");
    const std::string viewer_token = viewer_token_of(o, settings);
    const ClientAccess access = checked_client_access(
        ClientAccess{settings.media_root, settings.recordings_root, settings.kernel_dir, settings.output_hosts});
    if (o.shard_plan > 0) {
        print_shard_plan(o);
        return 0;
    }
    const bool https = !o.tls_cert.empty();
    if (https && o.api_port < 0) fail(ErrorCategory::Usage, "--tls-cert needs --api-port: it is the API's certificate");
    const std::vector<PeerSource> peers = peers_of(o, https);
    // Read once, before anything starts: a CA file that cannot be used is a usage error.
    const std::shared_ptr<const HttpsTrust> peer_trust = https ? std::make_shared<const HttpsTrust>(settings.tls_ca, "serve: tls-ca") : nullptr;
    ApiChanges changes(settings.api_state, access);
    StreamNames names;
    // --store: the fleet's store, the API's changes kept there (outliving the lease's thread that
    // syncs them), and the lease.
    // A call to the store within a sixth of the lease (at most a second): a shard finds the store
    // gone, and says so to its peers, before a lease renewed at another phase lapses.
    const int store_call_ms = std::clamp(settings.store_lease_s * 1000 / 6, 200, 1000);
    const std::shared_ptr<EtcdStore> store =
        o.store.empty() ? nullptr : std::make_shared<EtcdStore>(EtcdStore::parse_endpoints(o.store), store_call_ms);
    const std::unique_ptr<StoreChanges> stored_changes = store ? std::make_unique<StoreChanges>(store, settings.store_prefix, changes) : nullptr;
    const std::unique_ptr<FleetMembership> membership = make_membership(o, settings, store);
    if (stored_changes) membership->after_renewal([&stored_changes] { stored_changes->sync(); });
    // A bad file changes nothing: exit 2. Every stream is checked, this shard's or not.
    ServeConfig file_config, whole;  // the file as last loaded; with the API's changes, every shard's streams
    const auto rebuild = [&] {
        whole = changes.over(file_config);
        names.set(whole);
        return owned_streams(whole, *membership);
    };
    const auto load = [&] {
        file_config = demo ? demo_serve_config(o.demo_streams) : load_serve_config(o.config);
        return rebuild();
    };
    const ServeConfig config = load();
    const std::string source = demo ? "--demo" : o.config;
    if (o.shard_count > 1)
        spdlog::info("shard {}/{}: {} stream(s) of {}", o.shard_index, o.shard_count, config.streams.size(), source);
    if (config.streams.empty() && o.api_port < 0)
        fail(ErrorCategory::Usage, source + ": no streams" + (o.shard_count > 1 ? " in this shard" : std::string()) +
                                       ", and no --api-port to add them through");

    // Signals are taken by this thread alone (signals.next in the loop); every thread started
    // from here on inherits the block.
    StopSignals signals(true);
    std::signal(SIGPIPE, SIG_IGN);

    // The GPU state of every stream: one runtime for the process, freed after the streams. Frames
    // launch alone, with no batch window (docs/serve.md, "Batched launches").
    GpuRuntimeOptions gpu_options;
    gpu_options.nvdec_slots = settings.nvdec_slots;
    const std::unique_ptr<WebhookSender> webhook = make_webhook(settings);  // outlives the streams whose events it sends
    StreamService service(settings.host_threads, settings.gpu_frames, settings.min_free, std::make_shared<GpuRuntime>(gpu_options));
    if (webhook)
        service.events().set_listener({[&webhook](const LoggedEvent& e) { webhook->send(describe(e)); },
                                       [&webhook](MetricSet& set) { webhook->collect_metrics(set); }});
    configure_service(service, o, settings, *membership);
    std::unique_ptr<Fleet> fleet;  // outlives the server that calls it
    if (o.api_port >= 0) fleet = make_fleet(o, peers, peer_trust, service, names, *membership);
    report_streams_added_elsewhere(changes, o, !peers.empty());
    ControlServer api = start_control_api(o, settings, viewer_token, access, service, fleet.get(), &changes, names);
    try {
        service.apply(config);  // checked whole before anything starts: a refusal is a bad file (exit 2)
    } catch (const ServiceError& e) {
        fail(ErrorCategory::Usage, source + ": " + e.what());
    }
    spdlog::info("serving {} stream(s) from {}", config.streams.size(), source);
    ServiceManager manager;  // systemd (Type=notify), when serve runs under it
    manager.ready(status_line(service));
    if (demo) {
        // The one line a newcomer needs, on stdout whatever the log level.
        std::printf("vfilter serve --demo: %zu streams of built-in pictures; open %s://%s:%d/ in a browser (Ctrl-C stops)\n",
                    config.streams.size(), https ? "https" : "http", o.api_bind.c_str(), api.server->port());
        std::fflush(stdout);
    }
    const ServeEnd end =
        serve_until_stopped(ServeLoop{o, settings, service, manager, signals, changes, fleet.get(), api.server != nullptr, load, membership.get(),
                                      [&names] { return names.get(); }, stored_changes.get(), rebuild});
    service.wait_all();
    api.server.reset();  // no request reaches the service from here on
    return exit_code_after(service, settings, end);
}

}  // namespace vf
