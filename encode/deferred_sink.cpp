#include "encode/deferred_sink.hpp"

namespace vf {

DeferredSink::DeferredSink(std::function<std::unique_ptr<Sink>()> make, std::string waiting)
    : make_(std::move(make)), waiting_(std::move(waiting)) {}

void DeferredSink::write_frame(const AVFrame* frame, Clock::time_point read_at) {
    Sink* sink = made();
    if (!sink) {
        std::unique_ptr<Sink> fresh = make_();  // outside the lock: opening an output may take a while
        if (tap_) fresh->tap_packets(tap_);
        std::lock_guard<std::mutex> lock(mutex_);
        inner_ = std::move(fresh);
        sink = inner_.get();
        made_.store(sink, std::memory_order_release);
    }
    sink->write_frame(frame, read_at);
    latency_.add(read_at);
}

void DeferredSink::write_packet(PassthroughPacket& packet) {
    if (Sink* sink = made()) sink->write_packet(packet);
}

void DeferredSink::finish() {
    if (Sink* sink = made()) sink->finish();
}

std::string DeferredSink::describe() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_ ? inner_->describe() : waiting_;
}

void DeferredSink::hurry() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (inner_) inner_->hurry();
}

void DeferredSink::tap_packets(PacketTap* tap) { tap_ = tap; }

}  // namespace vf
