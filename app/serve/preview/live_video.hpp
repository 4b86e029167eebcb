// Live video of one served stream for browsers (live.mp4, the page's tiles), per side (input or
// output) and width, shared by every viewer of that side and width and made only while someone
// watches, on a thread of its own (never the stream's):
// - where the stream's output is H.264 with its SPS and PPS as extradata (a file, segments, an
//   RTSP or RTMP output) and the output side is asked for at its width or wider, the output
//   encoder's own packets, sent as they are (media/packet_tap.hpp): no second encoder. A new
//   viewer starts at the last keyframe sent (the page then jumps to the newest frame);
// - otherwise a preview encoder (encode/live_fmp4.hpp) on the side's frames at that width; a new
//   viewer asks it for a keyframe and starts there, so nobody waits a whole GOP.
// A viewer gets the init segment, then fragments from a keyframe on; one that falls behind skips
// ahead to the newest keyframe.
#pragma once

#include "app/serve/preview/encoder_budget.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/serve/preview/preview_query.hpp"
#include "media/frame_tap.hpp"
#include "media/packet_tap.hpp"

namespace vf {

// What a viewer is sent, in order: an init segment (again whenever the picture size changes),
// then fragments.
struct LiveMessage {
    bool init = false;
    std::string bytes;
    std::string codec;          // init: the MSE codec string (avc1.PPCCLL)
    int width = 0, height = 0;  // init: the picture's size
    bool keyframe = false;      // fragment
    int64_t pts_ms = 0;         // fragment: its time in the stream's timeline (milliseconds)
    int64_t arrived_ms = 0;     // fragment: when its frame's data reached vfilter (Unix time, ms)
};

class LiveChannel;

class LiveVideo {
public:
    static constexpr int kMaxWidths = 4;  // widths encoded at once per side

    // budget: the process's preview encoders (null: no limit beyond kMaxWidths).
    LiveVideo(FrameTap& input, FrameTap& output, PacketTap& packets, EncoderBudget* budget = nullptr)
        : input_(input), output_(output), packets_(packets), budget_(budget) {}
    ~LiveVideo();

    // A viewer of `side` at `width`: its encoder starts with the first viewer and stops after the
    // last has gone. Throws ServiceError(503) beyond kMaxWidths widths of one side, or when the
    // process's encoder budget is spent.
    class Viewer {
    public:
        ~Viewer();
        Viewer(const Viewer&) = delete;
        Viewer& operator=(const Viewer&) = delete;
        // The messages since the last call, waiting up to `timeout` for one; empty when none
        // came (a camera reconnecting) or the stream ended (then ended() is true).
        std::vector<LiveMessage> next(std::chrono::milliseconds timeout);
        bool ended() const;

    private:
        friend class LiveVideo;
        explicit Viewer(std::shared_ptr<LiveChannel> channel);
        std::shared_ptr<LiveChannel> channel_;
        uint64_t seen_ = 0;        // the last fragment sent
        int init_sent_ = 0;        // the init generation sent
        bool started_ = false;     // a keyframe was sent: later fragments follow on from it
    };
    std::unique_ptr<Viewer> watch(PreviewSide side, int width);

    void close();                  // the stream ended: viewers finish
    int encoders_running() const;  // for /metrics: preview encoders running
    int passthrough_running() const;  // 0 or 1: the output's own packets being sent
    int viewers() const;
    int64_t fragments_made() const;

private:
    FrameTap& input_;
    FrameTap& output_;
    PacketTap& packets_;
    EncoderBudget* budget_;
    mutable std::mutex mutex_;
    std::map<std::pair<int, int>, std::shared_ptr<LiveChannel>> channels_;  // (side, width)
    bool closed_ = false;
    int64_t retired_made_ = 0;  // fragments of channels let go
};

}  // namespace vf
