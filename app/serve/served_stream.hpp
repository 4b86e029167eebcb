// One stream of `vfilter serve`: a Job (the same engine as the single-stream command) run on a
// thread of its own, so a camera that blocks, reconnects or fails touches no other stream. Its
// state and counters are readable from any thread while it runs and after it ended.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "app/run/job.hpp"
#include "app/serve/preview/stream_preview.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/watch/camera_watchers.hpp"
#include "app/serve/watch/clip_memory_budget.hpp"
#include "app/serve/watch/clip_recorder.hpp"
#include "common/metric_set.hpp"

namespace vf {

class Error;
class RecordingRetention;
class RetentionKeeper;

// Waiting: its input could not be opened yet for a reason that may pass (a camera booting);
// it is tried again with the reconnect backoff.
enum class StreamState { Starting, Waiting, Running, Reconnecting, Failed, Stopped };
const char* state_name(StreamState s);

class ServedStream {
public:
    // keeper: where its --segment recordings' retention is applied (null: none is).
    // keeper: applies its recordings' retention; encoders: the process's preview encoders (null: no limit).
    // runtime: the GPU state its jobs run on (empty: each job's own). watchers: where it watches
    // itself unless its entry says watch: false (null: it does not). clip_memory: what its clips'
    // pre-roll reserves from (null: no limit); without room, it runs without clips.
    explicit ServedStream(StreamConfig config, RetentionKeeper* keeper = nullptr, EncoderBudget* encoders = nullptr,
                          std::shared_ptr<GpuRuntime> runtime = nullptr, CameraWatchers* watchers = nullptr,
                          ClipMemoryBudget* clip_memory = nullptr);
    ~ServedStream();  // stops and joins
    ServedStream(const ServedStream&) = delete;
    ServedStream& operator=(const ServedStream&) = delete;

    // Called on its thread each time its input opens, with the input's video and whether NVDEC
    // decodes it (serve counts the stream's decoding load by them). Set before start().
    // Where its input decodes once open: NVDEC, or the CPU (waiting: until a shared NVDEC decoder has room).
    using InputOpened = std::function<void(const VideoInfo&, bool nvdec, bool waiting_for_nvdec)>;
    void on_input_opened(InputOpened f) { on_input_opened_ = std::move(f); }
    // Called on its decode thread after its decoding moved (move_decoder), with where it now
    // decodes. Set before start().
    using DecoderMoved = std::function<void(bool nvdec)>;
    void on_decoder_moved(DecoderMoved f) { on_decoder_moved_ = std::move(f); }
    // placed by load: decode on NVDEC (true) or the CPU from the input's next key
    // frame on (app/serve/decoder_balance.hpp); a later job of the stream starts there too. False when
    // it is not running or its input cannot move.
    bool move_decoder(bool nvdec);
    void start();
    // Stops reading, drains what is in flight and finalises the output (as the first Ctrl-C of
    // a single run); abandon=true discards what is in flight (the second one). Returns at once.
    void stop(bool abandon = false);
    void join();

    const std::string& name() const { return config_.name; }
    const StreamConfig& config() const { return config_; }
    StreamState state() const;
    // Its thread is done: stopped, or failed for good (a recording whose disk is full is failed
    // while it waits for space, but has not ended).
    bool ended() const { return finished_; }
    // name, state, input and output (credentials redacted), filter, frames in/out/dropped, fps,
    // reconnects, last error, where it filters (device: gpu or cpu), latency p99; while waiting
    // for its input, the attempts made (input_attempts) and the seconds to the next (next_attempt_s);
    // for --segment recordings and clips, "recordings": files and bytes kept and deleted; while it
    // watches itself, "watch": its conditions and last measures; with clips.on, "clips".
    nlohmann::json describe() const;
    // describe() with "stats": the single run's --stats-json object once it ended (null before).
    nlohmann::json summary() const;
    void collect_metrics(MetricSet& set) const;
    bool on_gpu() const;  // its filters run on the GPU (known once it runs)
    // Frames its input gave so far: its job's count, which starts again with each new job.
    int64_t frames_in() const;
    // Its pictures before and after the filter (the page's previews); any thread, any time, and
    // still readable (its last pictures) after the stream is gone.
    std::shared_ptr<StreamPreview> preview() const { return preview_; }
    // Its watch (GET /streams/NAME/watch); null when it does not watch itself.
    std::shared_ptr<WatchedStream> watch() const { return watch_; }
    // Throws Error(Usage) for a bad chain; Error(Usage) too when the stream is not running.
    void set_filter(const FilterChain& chain, const KernelFiles& files);

    // Free space a full disk must have again before a recording goes on (beyond --min-free).
    static constexpr int64_t kRoomToRecordAgain = 16 << 20;

private:
    void run();
    // One job, from opening its input to its end. True when it failed for a full disk and the
    // stream records again once space returns.
    bool run_job(const RunOptions& o);
    bool records_again_after(const Error& e) const;
    bool ended_with_error(const std::exception& e);  // failed before running; true: records again
    bool wait_for_space();  // false when stopped first

    StreamConfig config_;
    RetentionKeeper* keeper_;
    std::shared_ptr<GpuRuntime> runtime_;
    InputOpened on_input_opened_;
    DecoderMoved on_decoder_moved_;
    std::atomic<int> moved_to_nvdec_{-1};  // where its last move went: 1 NVDEC, 0 the CPU, -1 none
    std::shared_ptr<RecordingRetention> retention_;  // --segment file recordings
    std::atomic<bool> finished_{false};
    std::shared_ptr<StreamPreview> preview_;
    std::shared_ptr<WatchedStream> watch_;  // null: it does not watch itself
    // Null: it writes no clips around events. Owned here alone and ended in the destructor; the
    // watch reaches it through clip_events_, closed first.
    std::unique_ptr<ClipRecorder> clips_;
    std::shared_ptr<ClipEventGate> clip_events_;
    std::shared_ptr<void> clip_memory_;  // its ring's reservation, given back after the recorder ended
    std::string clips_refused_;          // why clips.on is set and no clip is written
    std::thread thread_;
    std::atomic<bool> stopping_{false};  // stop() was called: ends a wait for the input
    mutable std::mutex mutex_;   // everything below
    std::unique_ptr<Job> job_;   // while it runs
    StreamState state_ = StreamState::Starting;
    std::string error_;
    std::string filter_;
    JobStatus last_;             // the counters when the job ended
    nlohmann::json final_stats_;
    bool stop_requested_ = false, abandon_requested_ = false;
    bool ran_ = false;           // its job was made (status says where it filtered)
    int input_attempts_ = 0;     // while waiting: attempts to open the input so far
    std::chrono::steady_clock::time_point next_attempt_;
};

}  // namespace vf
