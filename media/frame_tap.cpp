#include "media/frame_tap.hpp"

namespace vf {

void FrameTap::offer(const AVFrame* frame, Clock::time_point read_at) {
    if (waiting_.load(std::memory_order_acquire) == 0 || !frame) return;
    AvFramePtr ref(av_frame_clone(frame));
    if (!ref) return;  // out of memory: the preview misses a frame, the stream does not
    bool for_readers = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (sample_asked_) {
            sample_asked_ = false;
            waiting_.fetch_sub(1, std::memory_order_acq_rel);
            sample_ = readers_ > 0 ? AvFramePtr(av_frame_clone(ref.get())) : std::move(ref);
        }
        if (readers_ > 0) {
            frame_ = std::move(ref);
            read_at_ = read_at;
            ++generation_;
            for_readers = true;
        }
    }
    ++taken_;
    if (for_readers) offered_.notify_all();
}

void FrameTap::ask_sample() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ || sample_asked_) return;
    sample_.reset();
    sample_asked_ = true;
    waiting_.fetch_add(1, std::memory_order_release);
}

void FrameTap::drop_sample() {
    std::lock_guard<std::mutex> lock(mutex_);
    sample_.reset();
    if (sample_asked_) waiting_.fetch_sub(1, std::memory_order_acq_rel);
    sample_asked_ = false;
}

AvFramePtr FrameTap::take_sample() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(sample_);
}

AvFramePtr FrameTap::next(std::chrono::milliseconds timeout, Clock::time_point* read_at) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) return nullptr;
    const uint64_t seen = generation_;
    ++readers_;
    waiting_.fetch_add(1, std::memory_order_release);
    const bool got = offered_.wait_for(lock, timeout, [&] { return generation_ != seen || closed_; });
    AvFramePtr out;
    if (got && generation_ != seen && frame_) {
        out.reset(av_frame_clone(frame_.get()));
        if (read_at) *read_at = read_at_;
    }
    waiting_.fetch_sub(1, std::memory_order_acq_rel);
    if (--readers_ == 0) frame_.reset();  // the last reader let go
    return out;
}

void FrameTap::close() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closed_ = true;
        frame_.reset();
    }
    drop_sample();
    offered_.notify_all();
}

}  // namespace vf
