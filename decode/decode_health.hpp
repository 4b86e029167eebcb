// Counts what the decoder could not use. Where a live connection was cut, from going down until
// the first clean frame after the reconnect (at most kCutGraceFrames damaged frames), errors are
// charged to the cut (SourceStatus::damaged_at_cuts) and do not make the input damaged: the
// outage is already reported as a reconnect. So are those since the last clean frame before the
// connection went down: a decoder that gives each frame out at once (NVDEC on a live input) hands
// over the camera's last half frame before the read that finds the connection gone.
#pragma once

#include <cstdint>

#include "decode/source.hpp"

namespace vf {

// A stream still broken this many frames (10 s at 30 fps) after a reconnect is damage, not a cut.
constexpr int64_t kCutGraceFrames = 300;

class DecodeDamage {
public:
    explicit DecodeDamage(SourceStatus& status) : status_(status) {}

    void connection_lost();
    void reconnected() { cut_ = Cut::Resuming, frames_since_cut_ = 0, recent_frames_ = recent_packets_ = 0; }
    void frame_decoded(bool damaged);
    void packet_rejected() { count(false); }

    DecodeHealth& health() { return health_; }
    const DecodeHealth& health() const { return health_; }

private:
    void count(bool frame);
    enum class Cut { None, Draining, Resuming } cut_ = Cut::None;
    int64_t frames_since_cut_ = 0;
    int64_t recent_frames_ = 0, recent_packets_ = 0;  // counted as damage since the last clean frame
    SourceStatus& status_;
    DecodeHealth health_;
};

}  // namespace vf
