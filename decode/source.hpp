// Where frames come from: a demuxed and decoded input (FileSource) or the built-in synthetic
// pattern (SyntheticSource). The pipeline's decode stage calls read() until it returns nullopt.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "media/frame.hpp"

namespace vf {

// How much of the input could not be used; any of it makes the run end with exit code 5.
struct DecodeHealth {
    int64_t bad_packets = 0;     // the decoder rejected them
    int64_t corrupt_frames = 0;  // decoded, but flagged as damaged by the decoder
    int64_t read_errors = 0;     // the demuxer failed before the end of the input
    std::string truncated;       // non-empty when the input stops well short of its duration
    std::string lost;            // non-empty when a live input went away and reconnecting gave up

    bool damaged() const { return bad_packets || corrupt_frames || read_errors || !truncated.empty() || !lost.empty(); }
    std::string summary() const;
};

// How a live input is doing; written by the decode thread, read by metrics and the summary.
struct SourceStatus {
    std::atomic<bool> up{true};
    std::atomic<int64_t> reconnects{0};  // successful reconnections
    std::atomic<double> gap_s{0};        // total time the input was down
    // Frames and packets the decoder flagged or rejected at the cut of a connection that went
    // down and was reopened: the last frame the camera half sent, the first ones of the new
    // connection until one decodes clean. The outage is reported as a reconnect, so these are
    // counted here and do not make the input "damaged" (exit 5).
    std::atomic<int64_t> damaged_at_cuts{0};
};

class Source {
public:
    virtual ~Source() = default;
    virtual const VideoInfo& video() const = 0;
    virtual std::vector<PassthroughStream> passthrough() const { return {}; }
    virtual const AVDictionary* metadata() const { return nullptr; }
    virtual std::string describe() const = 0;
    // The next frame or passthrough packet; nullopt at the end of the input or after stop().
    virtual std::optional<PipelineItem> read() = 0;
    virtual DecodeHealth health() const { return {}; }
    // Frames copied on the host on their way out (format conversions); 0 is the goal.
    virtual int64_t host_copies() const { return 0; }
    // "cuda" when frames come out in device memory (NVDEC), "none" otherwise.
    virtual std::string hw_decode() const { return "none"; }
    // With NVDEC, what drives it: "ffmpeg" (FFmpeg's hwaccel) or "vfilter" (decode/nvdec_decoder.hpp).
    virtual std::string nvdec_decoder() const { return ""; }
    // A camera or stream that produces frames in real time (or a file paced with --realtime):
    // frames are dropped rather than queued when processing falls behind (--on-overload).
    virtual bool live() const { return false; }
    const SourceStatus& status() const { return status_; }
    // serve --decoder-placement load: asks the input to decode on NVDEC (true) or the CPU (false)
    // from its next clean start (decode/clean_start.hpp) on, the frames before it drained from the
    // old decoder first, so none is lost or repeated. Any thread; false when this source cannot
    // move (see FileSourceOptions::decoder_movable). The last request wins.
    virtual bool request_decoder_move(bool nvdec) {
        (void)nvdec;
        return false;
    }
    // Decodes on the CPU until a shared NVDEC decoder has room, then moves (serve --nvdec-share).
    virtual bool waits_for_nvdec() const { return false; }
    // Called on the decode thread after each move with where the input now decodes (false when
    // NVDEC was asked for and would not take it: the CPU decodes on). Set before reading.
    using DecoderMoved = std::function<void(bool nvdec)>;
    void on_decoder_moved(DecoderMoved f) { decoder_moved_ = std::move(f); }
    // Ends the input early (Ctrl-C, --frames); safe to call from any thread.
    void stop() { stop_requested_ = true; }

protected:
    std::atomic<bool> stop_requested_{false};
    SourceStatus status_;
    DecoderMoved decoder_moved_;
};

}  // namespace vf
