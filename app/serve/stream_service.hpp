// The streams of `vfilter serve`, by name: added, removed, re-filtered and reconciled with an
// edited config file, each change checked in full before anything is touched. One process, so
// every stream's GPU work shares the process's one CUDA context; host threads are budgeted
// across streams instead of each stream taking every core.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "app/run/retention_keeper.hpp"
#include "app/serve/decoder_balance.hpp"
#include "app/serve/preview/encoder_budget.hpp"
#include "app/serve/served_stream.hpp"
#include "app/serve/service_error.hpp"
#include "app/serve/watch/camera_watchers.hpp"

namespace vf {

// The GPU a new stream goes to: of `gpus`, the one with the fewest streams placed (`load`),
// the first listed on a tie.
int least_loaded_gpu(const std::vector<int>& gpus, const std::map<int, int>& load);

// What drives NVDEC for a stream of serve: vfilter's decoder unless the stream's entry (or the
// file's defaults) names one; always vfilter's with shared decoders, which only it makes.
NvdecDecoderKind serve_nvdec_decoder(const StreamConfig& stream, bool nvdec_share);

class StreamService {
public:
    // host_threads: decoder + encoder + CPU filter threads to share among the streams (0: the
    // cores). gpu_frames: frames in flight on the GPU, shared among the streams (2 to 6 each).
    // min_free: the free space kept on the disks recordings go to (--min-free). runtime: the GPU
    // state every stream's GPU work runs on (pipeline/gpu_runtime.hpp; empty: a default one).
    explicit StreamService(int host_threads = 0, int gpu_frames = 24, FreeSpaceFloor min_free = {},
                           std::shared_ptr<GpuRuntime> runtime = nullptr);
    ~StreamService();  // stops every stream, finalising its output

    // The whole config: streams no longer named are stopped, changed ones restarted, new ones
    // started. Checked before anything changes (duplicate outputs included).
    void apply(const ServeConfig& config);
    void add(StreamConfig stream);           // 409 on a name or output in use
    // 404; returns once its output is finalised, with its last describe() and "stats".
    nlohmann::json remove(const std::string& name);
    // 404, 400, 403 (a file= its sender may not read), 409. `files`: where the chain's kernel files may be.
    void set_filter(const std::string& name, const std::string& chain, const KernelFiles& files = {});
    StreamFields defaults() const;  // the file's defaults: a copy, apply() may change them
    // This process serves shard `index` of `count`: add() refuses streams of other shards (409),
    // the shard `owner_of` names (the live shards' with a store) or, without it, shard_of's.
    void set_shard(int index, int count, std::function<int(const std::string&)> owner_of = {}) {
        shard_index_ = index, shard_count_ = count, owner_of_ = std::move(owner_of);
    }
    // GPU streams are placed on these GPUs, fewest streams first (empty: the default GPU), and
    // those that may decode on NVDEC (hwdec auto) on NVDEC or the CPU by load (app/serve/decoder_balance.hpp).
    // Before any stream starts: the streams' load callbacks hold the placement it makes.
    void set_gpus(std::vector<int> gpus, DecoderCapacity capacity = {});
    const std::shared_ptr<GpuRuntime>& runtime() const { return runtime_; }
    // Streams run at most (each holds threads and memory even while it waits for its camera):
    // add() beyond it is refused (503), and so is a config file naming more.
    void set_max_streams(size_t count) { max_streams_ = count; }
    // Whether streams watch themselves (the serve: block's watch); set before any stream starts.
    void set_watch(bool on) {
        if (!on) watchers_.reset();
        else if (!watchers_) watchers_ = std::make_unique<CameraWatchers>(*events_);
    }
    EventLog& events() { return *events_; }  // the watched streams' recent events
    // Bytes the streams' clips may hold for their pre-roll together (serve: clips-memory); set
    // before any stream starts.
    void set_clips_memory(int64_t bytes) { clip_memory_ = std::make_unique<ClipMemoryBudget>(bytes); }
    // Preview encoders (live video) the whole process runs at once; set before any stream starts.
    void set_max_preview_encoders(int count) { encoders_ = std::make_unique<EncoderBudget>(count); }

    nlohmann::json list() const;              // every stream's describe(), by name, with where it decodes
    nlohmann::json capacity_left() const;     // decoder capacity left (null without a GPU)
    std::shared_ptr<StreamPreview> preview(const std::string& name) const;  // 404
    std::shared_ptr<WatchedStream> watch(const std::string& name) const;     // 404, also when it does not watch itself
    bool closing() const;                     // stop_all() was called
    nlohmann::json final_stats() const;       // {name: summary()}, the last 256 removed streams included
    std::string metrics() const;              // Prometheus text, every sample labelled by stream
    bool ready() const;                       // no stream is still opening
    bool all_ended() const;                   // every stream is stopped or failed (true when none)
    size_t size() const;
    // The names of the streams it runs (ended ones until removed included).
    std::set<std::string> names() const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::set<std::string> all;
        for (const auto& entry : streams_) all.insert(entry.first);
        return all;
    }
    // Stops every stream (abandon: discard what is in flight) and waits for all of them.
    void stop_all(bool abandon = false);
    void wait_all();

private:
    void start_locked(StreamConfig stream, int streams_sharing);
    void check_output_free_locked(const StreamConfig& stream, const std::string& ignoring) const;

    int host_threads_;
    int gpu_frames_;
    std::shared_ptr<GpuRuntime> runtime_;
    size_t max_streams_ = 512;
    mutable std::mutex mutex_;
    bool closing_ = false;
    int shard_index_ = 0, shard_count_ = 1;
    std::function<int(const std::string&)> owner_of_;
    std::vector<int> gpus_;
    std::map<int, int> gpu_load_;  // streams placed per GPU, until removed
    std::unique_ptr<DecoderBalance> decoders_;  // with GPUs: where streams decode
    bool nvdec_share_ = false;                  // streams decode through vfilter's NVDEC decoder, sharing decoders
    void place_decoder_locked(StreamConfig& stream);
    void unplace(const ServedStream& stream);
    // After streams left, or NVDEC's capacity was measured anew: moves streams between NVDEC and
    // the CPU if the loads are now lopsided.
    void rebalance_decoders_locked();
    // With GPUs: NVDEC's utilisation read from NVML about once a second (decode/nvdec_busy_meter.hpp)
    // on a thread of its own, teaching decoders_ each GPU's NVDEC capacity; stopped before
    // decoders_ is replaced or goes. Guarded by mutex_.
    void sample_nvdec();
    void stop_nvdec_sampler();
    std::thread nvdec_sampler_;
    std::condition_variable nvdec_sampler_wake_;
    bool nvdec_sampler_stop_ = false;
    StreamFields defaults_;
    RetentionKeeper keeper_;  // before the streams: they unregister from it when destroyed
    std::unique_ptr<EncoderBudget> encoders_ = std::make_unique<EncoderBudget>(16);  // before the streams, which hold places
    std::unique_ptr<ClipMemoryBudget> clip_memory_;  // null: no limit (the reservations outlive it)
    std::unique_ptr<EventLog> events_ = std::make_unique<EventLog>();
    std::unique_ptr<CameraWatchers> watchers_ = std::make_unique<CameraWatchers>(*events_);  // visits the streams' watches
    std::map<std::string, std::shared_ptr<ServedStream>> streams_;  // shared: set_filter builds outside the lock
    // The summaries of the last kRetiredKept streams removed or replaced, for final_stats():
    // bounded, since a service that runs for months may see streams come and go without end. Kept
    // as compact JSON text, read back at the end: a parsed summary holds five times its text (10
    // KiB against 2), and the 256 kept fill up over a soak's first two hours.
    static constexpr size_t kRetiredKept = 256;
    std::deque<std::string> retired_;
    size_t retired_dropped_ = 0;
    void retire(const ServedStream& stream);
};

}  // namespace vf
