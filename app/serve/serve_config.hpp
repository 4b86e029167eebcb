// `vfilter serve`'s streams: the YAML file (a `defaults:` block and a `streams:` list) and the
// control API's JSON stream entries read into the same StreamConfig. Every field is a per-stream
// option of the single-stream command line (app/run/stream_options.hpp); `${NAME}` in a value is
// replaced by the environment variable NAME, so Kubernetes Secrets can supply camera URLs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/run/clip_fields.hpp"
#include "app/run/stream_options.hpp"
#include "app/run/watch_fields.hpp"
#include "app/serve/client_access.hpp"
#include "config/options.hpp"

namespace vf {

struct StreamConfig {
    std::string name;                           // [A-Za-z0-9_-]+, unique
    StreamFields fields;  // typed as read, with the defaults merged in, variables expanded
    RunOptions options;                         // what the fields mean
    StreamWatchFields watch;                    // what its watch fields mean
    StreamClipFields clips;                     // what its clip fields mean
    bool operator==(const StreamConfig& o) const { return name == o.name && fields == o.fields; }
};

struct ServeConfig {
    StreamFields defaults;  // as read (variables expanded)
    std::vector<StreamConfig> streams;
};

// Throws Error(Usage) with a one-line reason: the file and line:column for YAML errors, the
// stream's name and the field for a bad entry.
ServeConfig parse_serve_config(const std::string& yaml_text, const std::string& file_name);
ServeConfig load_serve_config(const std::string& path);
// `vfilter serve --demo N`: N streams (1..16) of built-in moving pictures (pattern://), each with
// another filter, to null: serve, its API and its page without a camera or a file.
ServeConfig demo_serve_config(int streams);

// One stream from the API's JSON object (same fields as the YAML), with `defaults` under it. The
// client's own fields are checked against `access` first (app/serve/client_access.hpp: Forbidden, 403).
StreamConfig stream_from_json(const std::string& json_text, const StreamFields& defaults,
                              const ClientAccess& access = ClientAccess{});

// A stream from its name and fields: checks the name, merges the defaults, reads the options.
// `kernel_files`: where its filter's file= may read (a client's chain: only --kernel-dir).
StreamConfig make_stream_config(const std::string& name, StreamFields fields, const StreamFields& defaults,
                                const KernelFiles& kernel_files = {});

// "${NAME}" replaced by the environment's NAME; throws Error(Usage) naming an unset variable.
std::string expand_environment(const std::string& value);

bool valid_stream_name(const std::string& name);

// The shard (0..count-1) a stream belongs to, from its name alone (rendezvous hashing: each shard
// scores the name, the highest wins). Going from N to N+1 shards moves only the streams the new
// shard wins, about 1/(N+1) of them, and nothing between the old shards.
int shard_of(const std::string& stream_name, int count);
// The shard among `alive` (the shards whose leases live, app/serve/fleet/shard_lease.hpp) that
// serves a stream: the same scores, so with every shard alive it is shard_of, and a lost shard's
// streams spread over the others by their next scores; -1 when none is alive.
int owner_among(const std::string& stream_name, const std::vector<int>& alive);
// The config's streams of shard `index` of `count`.
ServeConfig shard_config(ServeConfig config, int index, int count);

}  // namespace vf
