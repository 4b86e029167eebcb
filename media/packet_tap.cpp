#include "media/packet_tap.hpp"

namespace vf {

PacketFormat::PacketFormat(const AVCodecContext& encoder) : parameters(avcodec_parameters_alloc()), time_base(encoder.time_base) {
    if (!parameters || avcodec_parameters_from_context(parameters, &encoder) < 0) {
        avcodec_parameters_free(&parameters);
        fail(ErrorCategory::Internal, "out of memory describing the output's packets");
    }
}

PacketFormat::~PacketFormat() { avcodec_parameters_free(&parameters); }

bool PacketFormat::h264_with_extradata() const {
    return parameters->codec_id == AV_CODEC_ID_H264 && parameters->extradata_size > 0;
}

void PacketTap::open(const AVCodecContext& encoder) {
    auto f = std::make_shared<PacketFormat>(encoder);
    std::lock_guard<std::mutex> lock(mutex_);
    f->generation = ++generation_;
    format_ = std::move(f);
    queue_.clear();
}

void PacketTap::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        format_.reset();
        queue_.clear();
    }
    offered_.notify_all();
}

void PacketTap::offer(const AVPacket* packet, Clock::time_point read_at) {
    if (!reading_.load(std::memory_order_acquire) || !packet) return;
    AvPacketPtr ref(av_packet_clone(packet));
    if (!ref) return;  // out of memory: the viewer resynchronises at a keyframe, the stream goes on
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (queue_.size() >= kMaxQueued) {
            queue_.clear();
            lost_ = true;
        }
        queue_.push_back({std::move(ref), read_at});
    }
    offered_.notify_all();
}

bool PacketTap::attach() {
    bool expected = false;
    return reading_.compare_exchange_strong(expected, true);
}

void PacketTap::detach() {
    reading_.store(false);
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();
    lost_ = false;
}

std::vector<PacketTap::Item> PacketTap::take(std::chrono::milliseconds timeout, bool* lost) {
    std::unique_lock<std::mutex> lock(mutex_);
    offered_.wait_for(lock, timeout, [&] { return !queue_.empty(); });
    std::vector<Item> out;
    while (!queue_.empty()) {
        out.push_back(std::move(queue_.front()));
        queue_.pop_front();
    }
    *lost = lost_;
    lost_ = false;
    return out;
}

std::shared_ptr<const PacketFormat> PacketTap::format() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return format_;
}

}  // namespace vf
