// The operator's settings of one `vfilter serve` process that the command line leaves out: the
// `serve:` block of the config file (docs/serve.md, "The serve: block"). Each key is typed and
// range-checked, with a one-line error naming the file, line:column and the key; an unknown key
// is refused with the allowed list. Where deployments set one through the environment
// (VFILTER_MEDIA_ROOT, ...), the variable wins over the file. These are read when serve starts;
// SIGHUP and watch-config apply the streams, not this block.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/quantities.hpp"

namespace vf {

struct DecoderCapacity;  // app/serve/decoder_balance.hpp

// Where a GPU stream that may decode on NVDEC (hwdec auto) decodes.
enum class DecoderPlacementRule {
    ByKind,  // cameras (live or paced inputs) by load; files that run as fast as they decode on NVDEC
    Nvdec,   // every one on NVDEC while NVDEC can decode it
    Load,    // every one by load, files too
};

struct ServeSettings {
    // What API clients may reach (app/serve/client_access.hpp); none of each by default.
    std::string media_root;
    std::string recordings_root;
    std::string kernel_dir;
    std::vector<std::string> output_hosts;
    std::vector<std::string> api_hosts;   // further names of this server a request's Host may give
    std::string tls_ca;                   // the CAs peers' certificates must come from ("": the system's)
    std::string api_token_file;           // the admin token's file (a systemd credential, a Kubernetes Secret)
    std::string viewer_token_file;        // a token that may look, not change
    std::string webhook;                  // where the cameras' events are POSTed (app/serve/webhook_sender.hpp)
    std::string webhook_secret_file;      // the key of their signatures
    int max_streams = 512;
    int max_previews = 8;
    int max_preview_encoders = 16;
    int host_threads = 0;                 // 0: one per core
    int gpu_frames = 24;
    FreeSpaceFloor min_free;
    double watch_config_s = 0;            // 0: the file is read again on SIGHUP only
    int store_lease_s = 5;                // --store: a shard's lease, the time a lost shard's cameras wait
    std::string store_prefix = "/vfilter";  // --store: the fleet's keys (several fleets may share an etcd)
    std::string api_state;
    std::string stats_json;
    DecoderPlacementRule decoder_placement = DecoderPlacementRule::ByKind;
    double nvdec_capacity = 0;            // 0: measured for each GPU while its streams decode
    double cpu_decode_capacity = 0;       // 0: from the cores
    int nvdec_slots = 0;                  // 0: no gate
    bool nvdec_share = false;
    bool watch = true;                    // streams watch themselves (each entry's watch: false turns one off)
    int64_t clips_memory = int64_t(1) << 30;  // the streams' clip pre-roll rings together (app/serve/watch/clip_memory_budget.hpp)
};

// Every key of the block, in the order docs/serve.md lists them.
const std::vector<std::string>& serve_setting_keys();

// The `serve:` block of a config file's text (none: the defaults). Throws Error(Usage).
ServeSettings parse_serve_settings(const std::string& yaml_text, const std::string& file_name);
ServeSettings load_serve_settings(const std::string& path);

// The serve: block of a file's text as YAML, to tell whether a reload changed it ("" when none
// or when the file does not parse).
std::string serve_block_text(const std::string& yaml_text);

// The environment's VFILTER_* variables over the file's values; `getenv` is injected for tests.
// Throws Error(Usage) naming the variable.
void apply_serve_environment(ServeSettings& settings,
                             const std::function<const char*(const char*)>& getenv_fn);

// What the settings say of where streams decode, for the DecoderBalance that places them.
DecoderCapacity decoder_capacity_of(const ServeSettings& settings);

}  // namespace vf
