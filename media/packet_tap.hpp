// The packets a stream's output encoder makes, for what uses them as they are instead of encoding
// the frames again: live video (app/serve/preview/live_video.cpp) and the clips around events
// (app/serve/watch/clip_recorder.hpp). The output offers every packet; only while a reader is
// attached does an offer do anything (a reference to the packet, never a copy of its data).
// Unlike frames, packets cannot be skipped (a decoder needs every one from a keyframe on), so each
// reader gets them all, in order, in a queue of its own bounded in count and bytes; one that falls
// behind loses what is queued and is told so, and starts again at a keyframe. A slow reader never
// makes the output wait: an offer only appends to each reader's queue.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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
    static constexpr size_t kMaxQueued = 256;            // packets a reader may fall behind
    static constexpr int64_t kMaxQueuedBytes = 64 << 20;  // and bytes

    struct Item {
        AvPacketPtr packet;
        Clock::time_point read_at;  // when the packet's frame arrived at vfilter
    };

    // One reader's place: attached while it lives.
    class Reader {
    public:
        ~Reader();
        Reader(const Reader&) = delete;
        Reader& operator=(const Reader&) = delete;
        // The packets since the last call, waiting up to `timeout` for one (or the output's
        // closing). `lost` is set when packets were dropped because this reader fell behind (the
        // next keyframe is where decoding can go on).
        std::vector<Item> take(std::chrono::milliseconds timeout, bool* lost);

    private:
        friend class PacketTap;
        explicit Reader(PacketTap& tap) : tap_(tap) {}
        PacketTap& tap_;
        std::deque<Item> queue_;  // under tap_.mutex_
        int64_t queued_bytes_ = 0;
        bool lost_ = false;
        uint64_t closes_seen_ = 0;
    };

    // Output side: an output opened with this encoder, or closed.
    void open(const AVCodecContext& encoder);
    void close();
    // Output side, for every packet: one atomic load when nobody reads.
    void offer(const AVPacket* packet, Clock::time_point read_at);

    // Reader side: a new reader, from the next packet offered on.
    std::unique_ptr<Reader> attach();
    std::shared_ptr<const PacketFormat> format() const;
    int readers() const { return readers_.load(); }

private:
    void detach(Reader* reader);

    std::atomic<int> readers_{0};
    mutable std::mutex mutex_;
    std::condition_variable offered_;
    std::shared_ptr<const PacketFormat> format_;
    uint64_t generation_ = 0;
    uint64_t closes_ = 0;  // wakes readers waiting when the output closes
    std::vector<Reader*> attached_;
};

}  // namespace vf
