// The last seconds of a stream's encoded packets, kept in memory so that a clip around an event
// can begin before the event (app/serve/watch/clip_recorder.hpp: the pre-roll). Bounded by time
// and by bytes; the oldest packets go first, a whole group of pictures at a time, so the ring
// always begins with a keyframe: whatever it hands out decodes from its first packet on. It keeps
// from the last keyframe at or before (newest - keep), so a clip asked to begin `keep` before the
// newest packet can; the bytes bound wins over time (a stream of huge packets keeps less).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

#include "media/packet_tap.hpp"

namespace vf {

class PacketRing {
public:
    using Clock = PacketTap::Clock;

    PacketRing(Clock::duration keep, int64_t max_bytes) : keep_(keep), max_bytes_(max_bytes) {}

    // Takes the packet (a packet before the first keyframe is dropped: nothing could decode it).
    void push(PacketTap::Item item);
    // References to the packets from the last keyframe at or before `from` (the oldest keyframe
    // when the ring does not reach back so far) to the newest, in order.
    std::vector<PacketTap::Item> since(Clock::time_point from) const;
    void clear();

    size_t size() const { return items_.size(); }
    int64_t bytes() const { return bytes_; }
    bool empty() const { return items_.empty(); }
    // The oldest packet's time and the newest's (the ring must not be empty).
    Clock::time_point oldest() const { return items_.front().read_at; }
    Clock::time_point newest() const { return items_.back().read_at; }

private:
    void drop_first_group();  // the packets before the second keyframe (all, when there is none)
    size_t second_keyframe() const;  // its index; size() when there is none

    Clock::duration keep_;
    int64_t max_bytes_;
    std::deque<PacketTap::Item> items_;
    std::deque<uint64_t> keyframes_;  // the sequence numbers of the keyframes in items_
    uint64_t first_seq_ = 0;          // the sequence number of items_.front()
    int64_t bytes_ = 0;
};

}  // namespace vf
