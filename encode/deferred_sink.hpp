// A sink made at the first frame: a camera read in standby (media/recording_window.hpp: a shard
// about to take it over) creates no output, and no dated segment, before it writes a frame.
// Passthrough packets before the first frame have nothing to go with and are dropped.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "encode/sink.hpp"

namespace vf {

class DeferredSink : public Sink {
public:
    // `make` builds the real sink (it may throw as the sink's constructor does); `waiting` is what
    // describe() says until then.
    DeferredSink(std::function<std::unique_ptr<Sink>()> make, std::string waiting);
    void write_frame(const AVFrame* frame, Clock::time_point read_at) override;
    void write_packet(PassthroughPacket& packet) override;
    void finish() override;
    std::string describe() const override;
    void hurry() override;
    void tap_packets(PacketTap* tap) override;

private:
    Sink* made() const { return made_.load(std::memory_order_acquire); }  // null until the first frame

    std::function<std::unique_ptr<Sink>()> make_;
    std::string waiting_;
    mutable std::mutex mutex_;  // inner_'s making against hurry() and describe() from other threads
    std::unique_ptr<Sink> inner_;
    std::atomic<Sink*> made_{nullptr};  // inner_ once made: no lock on the per-frame path
    PacketTap* tap_ = nullptr;          // set before the run starts
};

}  // namespace vf
