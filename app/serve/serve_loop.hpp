// The main thread of `vfilter serve` once its streams run (run_serve, serve_command.cpp): it
// takes the signals (SIGINT/SIGTERM stop, a second one stops at once, SIGHUP reloads), watches
// the config file (watch-config), keeps the service manager told, gives free memory back and
// hands streams that another shard serves now over to it, until the streams have ended.
#pragma once

#include <functional>
#include <string>

#include "app/run/stop_signals.hpp"
#include "app/serve/api_changes.hpp"
#include "app/serve/fleet/fleet.hpp"
#include "app/serve/fleet/store_changes.hpp"
#include "app/serve/serve_command.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/service_manager.hpp"
#include "app/serve/stream_service.hpp"

namespace vf {

// What the loop works on, all made by run_serve before it starts.
struct ServeLoop {
    const ServeOptions& options;
    const ServeSettings& settings;
    StreamService& service;
    ServiceManager& manager;
    StopSignals& signals;
    ApiChanges& changes;
    Fleet* fleet;                       // null without the control API
    bool has_api;                       // a client can add streams: the loop does not end with them
    std::function<ServeConfig()> load;  // the file (or --demo's list) read again: this shard's streams
    FleetMembership* membership;        // who serves what (app/serve/fleet/fleet_membership.hpp)
    std::function<std::vector<std::string>()> names;  // every stream of the list last loaded, every shard's
    StoreChanges* stored_changes;       // --store: the API's changes of every shard (null without)
    std::function<ServeConfig()> rebuild;  // the list rebuilt from the file last loaded and the API's changes
};

// How the loop ended.
struct ServeEnd {
    int stops = 0;                    // SIGINT/SIGTERM taken
    bool ended_on_their_own = false;  // every stream ended, and no API could add one
};

// Runs until the streams have ended after a stop, or on their own where no API can add one.
ServeEnd serve_until_stopped(const ServeLoop& loop);

// "3 stream(s): 2 running, 1 waiting", for the service manager.
std::string status_line(const StreamService& service);

}  // namespace vf
