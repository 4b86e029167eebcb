// The fields of a stream entry that set how the stream watches itself (docs/serve.md, "Cameras
// that watch themselves"): `watch` (true/false) and the overrides `watch.measure_rate_hz`,
// `watch.calibration_s`, `watch.motion_noise_levels` and `watch.<condition>.<setting>` (enabled,
// enter, leave, enter_hold_s, leave_hold_s), each typed as the option table's fields are
// (app/run/stream_options.hpp declares them beside the others). Only serve watches: the single
// run's command line has none of them.
#pragma once

#include <string>
#include <vector>

#include "app/run/stream_options.hpp"
#include "pipeline/watch/watch_settings.hpp"

namespace vf {

struct StreamWatchFields {
    bool enabled = true;  // the entry's `watch`
    watch::WatchSettings settings;
};

// Whether `field` is one of them.
bool is_watch_field(const std::string& field);
// The type it declares (Boolean for `watch` and `.enabled`, Integer for motion_noise_levels, else Number).
FieldType watch_field_type(const std::string& field);
// Every one of them by name.
const std::vector<std::string>& watch_field_names();

// The watch fields of an entry (others ignored), read as their types and checked in range
// (watch::check_watch_settings). Throws Error(Usage) with one line naming the field.
StreamWatchFields watch_from_fields(const StreamFields& fields);

}  // namespace vf
