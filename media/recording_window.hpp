// When a stream's frames are written, by the moment each was read. A camera handed from one
// shard to another (docs/kubernetes.md, "Failover") is written by the shard it leaves up to an
// agreed moment and by the one it goes to from that moment on, so that the two recordings meet
// with no gap and no second copy. The one it goes to reads the camera before that moment
// (standby: the input open, nothing written) so that its first frame is there in time.
// The serve loop moves the moments while the job runs; the pipeline asks for every frame.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace vf {

class RecordingWindow {
public:
    using Clock = std::chrono::steady_clock;
    enum class Verdict { Keep, Drop, End };

    // Open (every frame written, no end) or in standby (nothing written until open_from()).
    explicit RecordingWindow(bool open = true) : from_(open ? kNever_ : kEnd_) {}

    // Frames read at `t` or later are written; earlier ones are dropped. Only ever moves earlier
    // (a hand-over's moment, then "now" once the claim is this shard's own).
    void open_from(Clock::time_point t) {
        const int64_t at = ticks(t);
        int64_t was = from_.load();
        while (at < was && !from_.compare_exchange_weak(was, at)) {
        }
    }
    // The run ends at the first frame read at `t` or later (the shard hands the camera on then).
    void end_at(Clock::time_point t) { until_ = ticks(t); }
    // A hand-over called off before its moment: the run goes on. A run that has ended stays
    // ended (its stream starts again with a window of its own).
    void end_never() { until_ = kEnd_; }

    // What becomes of a frame read at `read_at` (counted as seen).
    Verdict admit(Clock::time_point read_at) {
        seen_ = true;
        const int64_t at = ticks(read_at);
        if (at >= until_.load()) {
            ended_ = true;
            return Verdict::End;
        }
        if (at < from_.load()) return Verdict::Drop;
        kept_ = true;
        return Verdict::Keep;
    }
    // A frame was read (the input works: the shard may say it is ready to take the camera).
    bool saw_frames() const { return seen_; }
    // Nothing written yet and not open: the input is read in standby.
    bool standby() const { return !kept_ && from_.load() > ticks(Clock::now()); }
    // A frame was written (passthrough packets before the first are dropped with the frames).
    bool kept_frames() const { return kept_; }
    bool ends() const { return until_.load() != kEnd_; }
    // The end has come: no frame read from now on is written here.
    bool past_end() const { return ticks(Clock::now()) >= until_.load(); }
    // A frame at or after the end came: the run ended there (the camera is the other shard's now).
    bool ended() const { return ended_; }

private:
    static int64_t ticks(Clock::time_point t) { return t.time_since_epoch().count(); }
    static constexpr int64_t kNever_ = INT64_MIN;  // open since always
    static constexpr int64_t kEnd_ = INT64_MAX;    // never
    std::atomic<int64_t> from_;
    std::atomic<int64_t> until_{kEnd_};
    std::atomic<bool> seen_{false}, kept_{false}, ended_{false};
};

}  // namespace vf
