// decode ─► queue ─► filter ─► queue ─► encode, each stage on its own thread, joined by bounded
// queues so the stages overlap and memory stays bounded. Passthrough packets travel the same
// queues, so they stay in order with the video. The first error stops every stage, and the
// sink is destroyed unfinished so it removes its partial output.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "decode/source.hpp"
#include "encode/sink.hpp"
#include "media/frame_tap.hpp"
#include "pipeline/bounded_queue.hpp"
#include "media/recording_window.hpp"
#include "pipeline/filter_stage.hpp"
#include "pipeline/stats.hpp"

namespace vf {

struct PipelineOptions {
    size_t queue_frames = 8;  // per queue
    int64_t max_frames = 0;   // stop after this many frames (0 = all)
    // --on-overload drop: when the filter stage is behind (its queue full), a decoded frame is
    // dropped instead of making the input wait, so latency on a live feed cannot grow.
    bool drop_when_behind = false;
    TimeWindow window;  // vfilter ffmpeg's -ss, -t, -to: frames outside are dropped (pipeline/time_cut.hpp)
    // serve's hand-over of a camera between shards: frames read outside it are dropped, and the
    // run ends at its end (media/recording_window.hpp). Null: every frame.
    std::shared_ptr<RecordingWindow> recording_window;
};

// Live counters for the progress display and the metrics endpoint; read from other threads.
struct PipelineProgress {
    std::atomic<int64_t> frames_in{0};
    std::atomic<int64_t> frames_out{0};
    std::atomic<int64_t> frames_dropped{0};
    std::atomic<double> position_s{0};
    StageClock decode{"decode"}, filter{"filter"}, encode{"encode"};
    std::atomic<Clock::time_point> started_at{Clock::now()};  // reset by run(); read by metrics scrapes
    // Where each frame's latency went, over the last 10 s: read to decoded (decoding, waits in the
    // decoder), decoded to taken by the filter stage (the queue before it), taken to filtered (the
    // filters, waits for the GPU and a batch), filtered to handed to the output (the queue after
    // them, encoding). The sink's figure is the whole.
    struct LatencyParts {
        LatencyLog decode, queue, filter, write;
    } latency_parts;
};

class Pipeline {
public:
    Pipeline(Source& source, FilterStage& filter, Sink& sink, PipelineOptions options);
    // Runs to the end of the input (or stop()). Throws the first stage error; the sink is not
    // finished then. The caller decides from health() whether the input was damaged.
    RunStats run();
    void stop() { source_.stop(); }
    // Stops at once: frames queued or in flight are discarded; run() then finishes the sink
    // with what was already written (the second Ctrl-C). Safe from any thread.
    void abandon();
    const PipelineProgress& progress() const { return progress_; }
    // Previews (vfilter serve's page): every frame is offered to `input` as it enters the filter
    // stage and to `output` as it goes to the sink (host frames there). Set before run().
    // Frames before and after the filter, and the sink's encoded packets, for previews and live
    // video. Set before run().
    void tap(FrameTap* input, FrameTap* output, PacketTap* packets) {
        input_tap_ = input, output_tap_ = output;
        sink_.tap_packets(packets);
    }

private:
    struct Run;
    void decode_loop(Run& run);
    void filter_loop(Run& run);
    void encode_loop(Run& run);
    void abort_all(Run& run);  // the first failure winds every stage down
    // After a GPU failure: finishes the output with what was filtered, then throws.
    void finish_after_device_failure(Run& run);
    RunStats summarize(const Run& run);

    Source& source_;
    FilterStage& filter_;
    Sink& sink_;
    PipelineOptions options_;
    PipelineProgress progress_;
    std::mutex queues_mutex_;  // guards the two pointers below, set while run() runs
    BoundedQueue<PipelineItem>* decoded_ = nullptr;
    BoundedQueue<PipelineItem>* filtered_ = nullptr;
    bool abandoned_ = false;
    FrameTap* input_tap_ = nullptr;
    FrameTap* output_tap_ = nullptr;
};

}  // namespace vf
