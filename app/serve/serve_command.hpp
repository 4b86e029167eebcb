// `vfilter serve --config streams.yaml`: every stream of the file in one process until
// SIGTERM/SIGINT, with the control API (app/serve/http/control_api.hpp) when --api-port is given; SIGHUP
// re-reads the file and applies the difference, and so does --watch-config once the file
// changes (a Kubernetes ConfigMap edited in place). docs/serve.md.
#pragma once

#include <string>
#include <vector>

#include "config/quantities.hpp"

namespace vf {

struct ServeOptions {
    std::string config;               // the YAML file
    int demo_streams = 0;             // --demo N: N streams of built-in pictures instead of a file
    int api_port = -1;                // < 0: no API (nor /metrics)
    std::string api_bind = "127.0.0.1";
    std::string api_token;            // the admin token: needed for /streams when set; required off loopback
    std::string api_token_file;       // --api-token-file: the admin token from a file (systemd credential, Secret)
    std::string viewer_token;         // --viewer-token(-file): may look (page, live video, snapshots), not change
    std::string viewer_token_file;
    std::string api_hosts;            // --api-host: names of this server a Host header may give, comma separated
    std::string tls_cert, tls_key;    // --tls-cert/--tls-key (PEM): the API speaks HTTPS only, and peers are called over it
    std::string tls_ca;               // --tls-ca: the CAs whose certificates peers must prove ("": the system's)
    std::string media_root;           // --media-root: local files API clients may read
    std::string recordings_root;      // --recordings-root: where API clients' recordings may go
    std::string kernel_dir;           // --kernel-dir: kernel files API clients' filters may read
    std::string output_hosts;         // --output-hosts: hosts API clients may publish to, comma separated
    int max_streams = 512;            // streams this process runs at most (the config's and the API's)
    int max_previews = 8;             // previews and live-video answers at once (each runs encoders)
    int max_preview_encoders = 16;    // live-video encoders the process runs at once, over every stream
    int host_threads = 0;             // decoder + encoder + CPU filter threads shared by the streams
    int gpu_frames = 24;              // frames in flight on the GPU shared by the streams (2..6 each)
    // The longest a frame waits to share a launch with other streams' (0: never). Off by default:
    // it never raised the frames a second, and with 150-200 cameras its wait cost latency and,
    // with every core busy, frames (docs/benchmarks.md, "Decoders on NVDEC and the CPU").
    double batch_wait_ms = 0;
    std::string stats_json;           // one object per stream, written at the end
    int shard_index = 0, shard_count = 1;  // --shard I/N: only the file's streams of shard I
    std::string gpus = "all";         // --gpus all | 0,1,...: where GPU streams are placed
    int shard_plan = 0;               // > 0: print each stream's shard of this many and exit
    double watch_config_s = 0;        // > 0: look at the file this often and apply it when it changed
    FreeSpaceFloor min_free;          // recordings' disks keep this free; the oldest finished recordings go first
    std::string peers;                // --peers: the other shards' APIs (app/serve/fleet/fleet.hpp)
    int nvdec_slots = 0;              // --nvdec-slots: 0 no gate (decode/nvdec_gate.hpp)
    bool nvdec_share = false;         // --nvdec-share: streams of one size share NVDEC decoders (decode/nvdec_decoder_pool.hpp)
    bool decoders_by_load = false;    // --decoder-placement load: NVDEC or the CPU by load (app/serve/decoder_balance.hpp)
    bool decoder_moves = true;        // --decoder-moves: with placement by load, running streams may move
    double nvdec_capacity = 0;        // camera streams a GPU's NVDEC decodes; 0: measured default (app/serve/decoder_balance.hpp)
    double cpu_decode_capacity = 0;   // the same for the CPU decoders; 0: from the cores
    std::string api_state;            // --api-state: the API's changes kept here over restarts (app/serve/api_changes.hpp)
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
