// Counts what the decoder could not use. Where a live connection was cut, from going down until
// the first clean frame after the reconnect (at most kCutGraceFrames damaged frames), errors are
// charged to the cut (SourceStatus::damaged_at_cuts) and do not make the input damaged: the
// outage is already reported as a reconnect.
#pragma once

#include <cstdint>

#include "decode/source.hpp"

namespace vf {

// A stream still broken this many frames (10 s at 30 fps) after a reconnect is damage, not a cut.
constexpr int64_t kCutGraceFrames = 300;

class DecodeDamage {
public:
    explicit DecodeDamage(SourceStatus& status) : status_(status) {}

    void connection_lost() { cut_ = Cut::Draining; }
    void reconnected() { cut_ = Cut::Resuming, frames_since_cut_ = 0; }
    void frame_decoded(bool damaged);
    void packet_rejected() { count(false); }

    DecodeHealth& health() { return health_; }
    const DecodeHealth& health() const { return health_; }

private:
    void count(bool frame);
    enum class Cut { None, Draining, Resuming } cut_ = Cut::None;
    int64_t frames_since_cut_ = 0;
    SourceStatus& status_;
    DecodeHealth health_;
};

}  // namespace vf
