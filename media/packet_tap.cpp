#include "media/packet_tap.hpp"

#include <algorithm>

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
    for (Reader* r : attached_) r->queue_.clear(), r->queued_bytes_ = 0;
}

void PacketTap::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        format_.reset();
        ++closes_;
        for (Reader* r : attached_) r->queue_.clear(), r->queued_bytes_ = 0;
    }
    offered_.notify_all();
}

void PacketTap::offer(const AVPacket* packet, Clock::time_point read_at) {
    if (readers_.load(std::memory_order_acquire) == 0 || !packet) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (Reader* r : attached_) {
            AvPacketPtr ref(av_packet_clone(packet));
            if (!ref) {  // out of memory: the reader resynchronises at a keyframe, the stream goes on
                r->queue_.clear(), r->queued_bytes_ = 0, r->lost_ = true;
                continue;
            }
            if (r->queue_.size() >= kMaxQueued || r->queued_bytes_ + packet->size > kMaxQueuedBytes) {
                r->queue_.clear(), r->queued_bytes_ = 0, r->lost_ = true;
            }
            r->queued_bytes_ += packet->size;
            r->queue_.push_back({std::move(ref), read_at});
        }
    }
    offered_.notify_all();
}

std::unique_ptr<PacketTap::Reader> PacketTap::attach() {
    std::unique_ptr<Reader> r(new Reader(*this));
    std::lock_guard<std::mutex> lock(mutex_);
    r->closes_seen_ = closes_;
    attached_.push_back(r.get());
    readers_.fetch_add(1, std::memory_order_release);
    return r;
}

void PacketTap::detach(Reader* reader) {
    std::lock_guard<std::mutex> lock(mutex_);
    attached_.erase(std::remove(attached_.begin(), attached_.end(), reader), attached_.end());
    readers_.fetch_sub(1, std::memory_order_release);
}

PacketTap::Reader::~Reader() { tap_.detach(this); }

std::vector<PacketTap::Item> PacketTap::Reader::take(std::chrono::milliseconds timeout, bool* lost) {
    std::unique_lock<std::mutex> lock(tap_.mutex_);
    tap_.offered_.wait_for(lock, timeout, [&] { return !queue_.empty() || closes_seen_ != tap_.closes_; });
    closes_seen_ = tap_.closes_;
    std::vector<Item> out;
    out.reserve(queue_.size());
    for (Item& item : queue_) out.push_back(std::move(item));
    queue_.clear();
    queued_bytes_ = 0;
    *lost = lost_;
    lost_ = false;
    return out;
}

std::shared_ptr<const PacketFormat> PacketTap::format() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return format_;
}

}  // namespace vf
