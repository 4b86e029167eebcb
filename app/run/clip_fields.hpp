// The fields of a stream entry that make serve write clips around its watch's events (docs/serve.md,
// "Clips around events"): `clips.on` (the conditions, "dark,covered"), `clips.pre_roll_s`,
// `clips.post_roll_s`, `clips.max_s` and `clips.only` (no recording but the clips), each typed as
// the option table's fields are (app/run/stream_options.hpp declares them beside the others).
// Only serve writes clips: the single run's command line has none of them.
#pragma once

#include <string>
#include <vector>

#include "app/run/stream_options.hpp"
#include "pipeline/watch/watch_settings.hpp"

namespace vf {

struct StreamClipFields {
    static constexpr double kMaxPreRollS = 30;
    std::vector<watch::Condition> on;  // empty: no clips
    double pre_roll_s = 5;    // before the condition's measure first went past (the event's since)
    double post_roll_s = 5;   // after the condition was left
    double max_s = 300;       // a clip is cut here, however long the condition lasts
    bool only = false;        // the output is encoded for the clips alone, not recorded
    bool enabled() const { return !on.empty(); }
    bool records(watch::Condition c) const;
};

bool is_clip_field(const std::string& field);
FieldType clip_field_type(const std::string& field);
const std::vector<std::string>& clip_field_names();

// The clip fields of an entry (others ignored), typed and checked in range. Throws Error(Usage)
// with one line naming the field.
StreamClipFields clips_from_fields(const StreamFields& fields);

}  // namespace vf
