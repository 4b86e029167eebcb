// `vfilter serve --config streams.yaml`: every stream of the file in one process until
// SIGTERM/SIGINT, with the control API (app/serve/http/control_api.hpp) when --api-port is given; SIGHUP
// re-reads the file and applies the difference, and so does the serve: block's watch-config once
// the file changes (a Kubernetes ConfigMap edited in place). docs/serve.md.
#pragma once

#include <string>
#include <vector>

#include "app/serve/serve_settings.hpp"

namespace vf {

// What the command line says (docs/serve.md, "Options"); the rest of the process's settings are
// the config file's serve: block (app/serve/serve_settings.hpp), read when serve starts.
struct ServeOptions {
    std::string config;               // the YAML file
    int demo_streams = 0;             // --demo N: N streams of built-in pictures instead of a file
    int api_port = -1;                // < 0: no API (nor /metrics)
    std::string api_bind = "127.0.0.1";
    std::string api_token;            // the admin token: needed for /streams when set; required off loopback
    std::string tls_cert, tls_key;    // --tls-cert/--tls-key (PEM): the API speaks HTTPS only, and peers are called over it
    int shard_index = 0, shard_count = 1;  // --shard I/N: only the file's streams of shard I
    std::string gpus = "all";         // --gpus all | 0,1,...: where GPU streams are placed
    int shard_plan = 0;               // `serve shard-plan COUNT`: print each stream's shard of COUNT and exit
    std::string peers;                // --peers: the other shards' APIs (app/serve/fleet/fleet.hpp)
    std::string store;                // --store: etcd's client URLs (app/serve/fleet/fleet_membership.hpp)
};

// The API port of --demo when none is given.
constexpr int kDemoApiPort = 8080;

// Exit code: 0 once stopped by a signal, or once every stream ended with none failed; 5 when
// streams ended on their own and one failed; 2 for a bad config or option (nothing started).
int run_serve(const ServeOptions& options);

// --gpus: "all" (every GPU CUDA sees; none when none answers) or a list of device numbers, each
// below `available` when a GPU answers. Throws Error(Usage) for anything else.
std::vector<int> parse_gpus(const std::string& text, int available);

// Whether an IPv4 address is on the loopback network (127.0.0.0/8).
bool is_loopback_address(const std::string& address);

}  // namespace vf
