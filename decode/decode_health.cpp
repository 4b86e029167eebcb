#include "decode/decode_health.hpp"

#include <spdlog/spdlog.h>

namespace vf {

std::string DecodeHealth::summary() const {
    std::string s;
    auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
    if (bad_packets) add(std::to_string(bad_packets) + " video packets could not be decoded");
    if (corrupt_frames) add(std::to_string(corrupt_frames) + " frames were decoded with errors");
    if (read_errors) add("reading stopped early on an error");
    if (!truncated.empty()) add(truncated);
    if (!lost.empty()) add(lost);
    return s;
}

void DecodeDamage::frame_decoded(bool damaged) {
    if (cut_ == Cut::Resuming && (!damaged || frames_since_cut_++ >= kCutGraceFrames)) cut_ = Cut::None;
    if (!damaged) recent_frames_ = recent_packets_ = 0;
    if (damaged) count(true);
}

void DecodeDamage::connection_lost() {
    // What broke since the last clean frame was the cut coming (up to the grace's worth: a
    // stream broken for longer was damaged before the cut).
    if (recent_frames_ + recent_packets_ <= kCutGraceFrames) {
        health_.corrupt_frames -= recent_frames_;
        health_.bad_packets -= recent_packets_;
        status_.damaged_at_cuts += recent_frames_ + recent_packets_;
    }
    recent_frames_ = recent_packets_ = 0;
    cut_ = Cut::Draining;
}

void DecodeDamage::count(bool frame) {
    if (cut_ != Cut::None) {
        ++status_.damaged_at_cuts;
        spdlog::debug("a {} damaged where the live input was cut", frame ? "frame" : "packet");
    } else {
        ++(frame ? health_.corrupt_frames : health_.bad_packets);
        ++(frame ? recent_frames_ : recent_packets_);
    }
}

}  // namespace vf
