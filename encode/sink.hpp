// Where filtered frames go: an encoded, muxed output (OutputFile) or nowhere (NullSink, for
// measuring decode + filter alone). Frames arrive in presentation order with the source's pts.
#pragma once

#include <mutex>
#include <string>

#include "common/histogram.hpp"
#include "media/frame.hpp"
#include "media/packet_tap.hpp"

namespace vf {

// Per-frame latency from the moment its data entered vfilter to the moment its encoded packet
// was written. Written by the encode thread, read by metrics scrapes, hence the lock. The first
// `warmup` frames (the same ones the sustained rate leaves out: CUDA and encoder start-up) are
// kept apart, so the percentiles describe the steady state; a run shorter than that reports them.
class LatencyLog {
public:
    void set_warmup(int64_t frames) {
        std::lock_guard<std::mutex> lock(mutex_);
        warmup_ = frames;
    }
    void add(Clock::time_point read_at) {
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - read_at).count();
        std::lock_guard<std::mutex> lock(mutex_);
        (seen_++ < warmup_ ? warming_ : histogram_).add(ms);
    }
    double percentile(double p) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return (seen_ > warmup_ ? histogram_ : warming_).percentile(p);
    }

private:
    mutable std::mutex mutex_;
    int64_t warmup_ = 0, seen_ = 0;
    DurationHistogram histogram_, warming_;
};

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
