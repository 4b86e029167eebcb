#include "media/packet_ring.hpp"

namespace vf {

namespace {

bool is_keyframe(const PacketTap::Item& item) { return item.packet && (item.packet->flags & AV_PKT_FLAG_KEY); }

}  // namespace

void PacketRing::push(PacketTap::Item item) {
    if (!item.packet) return;
    const bool key = is_keyframe(item);
    if (items_.empty() && !key) return;
    if (key) keyframes_.push_back(first_seq_ + items_.size());
    bytes_ += item.packet->size;
    items_.push_back(std::move(item));
    // Time: a group goes once the next keyframe is itself at or before newest - keep.
    const Clock::time_point horizon = items_.back().read_at - keep_;
    for (size_t second = second_keyframe(); second < items_.size() && items_[second].read_at <= horizon; second = second_keyframe())
        drop_first_group();
    while (bytes_ > max_bytes_ && !items_.empty()) drop_first_group();
}

size_t PacketRing::second_keyframe() const {
    return keyframes_.size() < 2 ? items_.size() : static_cast<size_t>(keyframes_[1] - first_seq_);
}

void PacketRing::drop_first_group() {
    const size_t end = second_keyframe();
    for (size_t i = 0; i < end; ++i) {
        bytes_ -= items_.front().packet->size;
        items_.pop_front();
    }
    first_seq_ += end;
    if (!keyframes_.empty()) keyframes_.pop_front();
    if (items_.empty()) keyframes_.clear();
}

std::vector<PacketTap::Item> PacketRing::since(Clock::time_point from) const {
    std::vector<PacketTap::Item> out;
    if (items_.empty()) return out;
    size_t start = 0;  // the ring begins with a keyframe
    for (const uint64_t k : keyframes_) {
        const size_t at = static_cast<size_t>(k - first_seq_);
        if (items_[at].read_at > from) break;
        start = at;
    }
    out.reserve(items_.size() - start);
    for (size_t i = start; i < items_.size(); ++i) {
        AvPacketPtr ref(av_packet_clone(items_[i].packet.get()));
        if (!ref) fail(ErrorCategory::Internal, "out of memory copying the pre-roll");
        out.push_back({std::move(ref), items_[i].read_at});
    }
    return out;
}

void PacketRing::clear() {
    first_seq_ += items_.size();
    items_.clear();
    keyframes_.clear();
    bytes_ = 0;
}

}  // namespace vf
