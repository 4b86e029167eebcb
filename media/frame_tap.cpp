#include "media/frame_tap.hpp"

namespace vf {

void FrameTap::offer(const AVFrame* frame, Clock::time_point read_at) {
    if (waiting_.load(std::memory_order_acquire) == 0 || !frame) return;
    AVFrame* ref = av_frame_clone(frame);
    if (!ref) return;  // out of memory: the preview misses a frame, the stream does not
    {
        std::lock_guard<std::mutex> lock(mutex_);
        frame_.reset(ref);
        read_at_ = read_at;
        ++generation_;
    }
    ++taken_;
    offered_.notify_all();
}

AvFramePtr FrameTap::next(std::chrono::milliseconds timeout, Clock::time_point* read_at) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) return nullptr;
    const uint64_t seen = generation_;
    waiting_.fetch_add(1, std::memory_order_release);
    const bool got = offered_.wait_for(lock, timeout, [&] { return generation_ != seen || closed_; });
    AvFramePtr out;
    if (got && generation_ != seen && frame_) {
        out.reset(av_frame_clone(frame_.get()));
        if (read_at) *read_at = read_at_;
    }
    if (waiting_.fetch_sub(1, std::memory_order_acq_rel) == 1) frame_.reset();  // the last reader let go
    return out;
}

void FrameTap::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closed_ = true;
        frame_.reset();
    }
    offered_.notify_all();
}

}  // namespace vf
