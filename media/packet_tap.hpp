// The packets a stream's output encoder makes, for live video that sends them as they are instead
// of encoding the frames again (app/serve/preview/live_video.cpp). The output offers every packet; only while a
// reader is attached does an offer do anything (a reference to the packet, never a copy of its
// data). Unlike frames, packets cannot be skipped (a decoder needs every one from a keyframe on),
// so the reader gets them all, in order; one that falls more than kMaxQueued behind loses what is
// queued and is told so, and starts again at a keyframe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "media/av_helpers.hpp"

namespace vf {

// The encoder's stream: codec, size, extradata (SPS and PPS for H.264) and its packets' time base.
struct PacketFormat {
    explicit PacketFormat(const AVCodecContext& encoder);
    ~PacketFormat();
    PacketFormat(const PacketFormat&) = delete;
    PacketFormat& operator=(const PacketFormat&) = delete;
    AVCodecParameters* parameters = nullptr;
    AVRational time_base{1, 1};
    uint64_t generation = 0;  // grows every time an output opens: a new stream of packets
    bool h264_with_extradata() const;
};

class PacketTap {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr size_t kMaxQueued = 256;

    struct Item {
        AvPacketPtr packet;
        Clock::time_point read_at;  // when the packet's frame arrived at vfilter
    };

    // Output side: an output opened with this encoder, or closed.
    void open(const AVCodecContext& encoder);
    void close();
    // Output side, for every packet: one atomic load when nobody reads.
    void offer(const AVPacket* packet, Clock::time_point read_at);

    // Reader side (one reader): false when one is attached already.
    bool attach();
    void detach();
    // The packets since the last call, waiting up to `timeout` for one. `lost` is set when packets
    // were dropped for a slow reader (then the next keyframe is where decoding can go on).
    std::vector<Item> take(std::chrono::milliseconds timeout, bool* lost);
    std::shared_ptr<const PacketFormat> format() const;

private:
    std::atomic<bool> reading_{false};
    mutable std::mutex mutex_;
    std::condition_variable offered_;
    std::shared_ptr<const PacketFormat> format_;
    uint64_t generation_ = 0;
    std::deque<Item> queue_;
    bool lost_ = false;
};

}  // namespace vf
