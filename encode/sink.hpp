// Where filtered frames go: an encoded, muxed output (OutputFile) or nowhere (NullSink, for
// measuring decode + filter alone). Frames arrive in presentation order with the source's pts.
#pragma once

#include <string>

#include "encode/latency_log.hpp"
#include "media/frame.hpp"
#include "media/packet_tap.hpp"

namespace vf {

class Sink {
public:
    virtual ~Sink() = default;
    // read_at: when the frame's data entered vfilter; its latency is logged once it is written.
    virtual void write_frame(const AVFrame* frame, Clock::time_point read_at) = 0;
    virtual void write_packet(PassthroughPacket& packet) = 0;
    // Flushes and finalises; the output is complete only after this returns. A sink destroyed
    // without finish() removes what it wrote, so no broken output is left looking finished.
    virtual void finish() = 0;
    virtual std::string describe() const = 0;
    // A second Ctrl-C: finish() must not wait for receivers. Called from another thread.
    virtual void hurry() {}
    // Where the sink's encoded packets are offered too (live video that sends them as they are);
    // a sink that encodes nothing ignores it. Set before the run starts.
    virtual void tap_packets(PacketTap*) {}
    const LatencyLog& latency() const { return latency_; }
    void set_latency_warmup(int64_t frames) { latency_.set_warmup(frames); }

protected:
    LatencyLog latency_;
};

class NullSink : public Sink {
public:
    void write_frame(const AVFrame*, Clock::time_point read_at) override { latency_.add(read_at); }
    void write_packet(PassthroughPacket&) override {}
    void finish() override {}
    std::string describe() const override { return "null (frames are filtered, then discarded)"; }
};

}  // namespace vf
