// A way for a reader on another thread (a preview) to see the frames going past one point of
// the pipeline without slowing it: the pipeline offers every frame, and only when a reader is
// waiting does the offer do anything (it takes a reference, never a copy of the pixels). Readers
// that wait at the same time share that one reference, and it is dropped as soon as the last of
// them took it, so a decoder's or pool's buffer is never held for long.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "media/av_helpers.hpp"

namespace vf {

class FrameTap {
public:
    using Clock = std::chrono::steady_clock;
    // Pipeline side, for every frame: one atomic load when nobody waits. read_at: when the frame's
    // data arrived at vfilter (what live video's latency counts from).
    void offer(const AVFrame* frame, Clock::time_point read_at = Clock::now());
    // Reader side: the first frame offered after this call, or null when none comes within
    // `timeout` or the tap is closed. The frame may be a hardware frame (NVDEC). read_at, when
    // given, gets the time the frame arrived.
    AvFramePtr next(std::chrono::milliseconds timeout, Clock::time_point* read_at = nullptr);
    // Reader side without waiting, for one sampler that visits many taps from one thread (the
    // streams' watchers): ask_sample() asks for the first frame offered from now on, and
    // take_sample() gives it once it came (null before). After the one frame is taken from the
    // pipeline, offers cost one atomic load again until the next ask. One sampler per tap.
    void ask_sample();
    AvFramePtr take_sample();
    // The sampler goes: its ask is withdrawn and a frame taken for it let go.
    void drop_sample();
    // No more frames (the stream ended): waiting readers return at once, and later ones too.
    void close();
    int64_t frames_taken() const { return taken_.load(); }  // offers that found a reader
    int waiting() const { return waiting_.load(); }         // readers and a sampler waiting for an offer

private:
    std::atomic<int> waiting_{0};
    std::atomic<int64_t> taken_{0};
    std::mutex mutex_;
    std::condition_variable offered_;
    int readers_ = 0;          // next() callers waiting
    bool sample_asked_ = false;
    AvFramePtr sample_;        // the sampler's frame, until it takes it
    AvFramePtr frame_;         // the last frame taken, while readers still wait for it
    Clock::time_point read_at_;
    uint64_t generation_ = 0;  // frames taken so far
    bool closed_ = false;
};

}  // namespace vf
