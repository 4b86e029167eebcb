// Where filtered frames go: an encoded, muxed output (OutputFile) or nowhere (NullSink, for
// measuring decode + filter alone). Frames arrive in presentation order with the source's pts.
#pragma once

#include <string>

#include "pipeline/frame.hpp"

namespace vf {

class Sink {
public:
    virtual ~Sink() = default;
    virtual void write_frame(const AVFrame* frame) = 0;
    virtual void write_packet(PassthroughPacket& packet) = 0;
    // Flushes and finalises; the output is complete only after this returns. A sink destroyed
    // without finish() removes what it wrote, so no broken output is left looking finished.
    virtual void finish() = 0;
    virtual std::string describe() const = 0;
};

class NullSink : public Sink {
public:
    void write_frame(const AVFrame*) override {}
    void write_packet(PassthroughPacket&) override {}
    void finish() override {}
    std::string describe() const override { return "null (frames are filtered, then discarded)"; }
};

}  // namespace vf
