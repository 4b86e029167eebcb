#include "app/serve/stream_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "common/error.hpp"
#include "common/free_memory.hpp"
#include "common/redact.hpp"
#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_metrics.hpp"
#endif

namespace vf {
namespace {

// Outputs two streams must not share: files (and segment patterns); network outputs and null may repeat.
bool exclusive_output(const std::string& out) {
    return !out.empty() && out != "null" && out != "-" && out.find("://") == std::string::npos;
}

// One name for one file: "path", "./path" and "dir/../path" are the same output, and so is a link
// to it (the folders resolved as far as they exist).
std::string output_identity(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    return ec ? std::filesystem::absolute(path).lexically_normal().string() : p.string();
}

}  // namespace

StreamService::StreamService(int host_threads, int gpu_frames, FreeSpaceFloor min_free, std::shared_ptr<GpuRuntime> runtime)
    : host_threads_(host_threads > 0 ? host_threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
      gpu_frames_(gpu_frames), runtime_(runtime ? std::move(runtime) : std::make_shared<GpuRuntime>()),
      keeper_(min_free) {}

StreamService::~StreamService() {
    stop_nvdec_sampler();
    stop_all();
    wait_all();
}

void StreamService::check_output_free_locked(const StreamConfig& s, const std::string& ignoring) const {
    if (!exclusive_output(s.options.output.path)) return;
    for (const auto& [name, other] : streams_)
        if (name != ignoring && name != s.name && !other->ended() &&
            output_identity(other->config().options.output.path) == output_identity(s.options.output.path))
            throw ServiceError(409, "stream '" + s.name + "': output '" + redact_credentials(s.options.output.path) +
                                        "' is already written by stream '" + name + "'");
}

void StreamService::start_locked(StreamConfig s, int sharing) {
    // Each stream gets its share of the host's threads unless its entry says otherwise.
    RunOptions& o = s.options;
    const int share = std::max(1, host_threads_ / std::max(1, sharing));
    if (!o.input.decoder_threads) o.placement.decoder_thread_share = share;
    if (!o.output.encoder_threads) o.output.encoder_threads = share;
    if (!o.filter.threads) o.filter.threads = share;
    // Frames in flight on the GPU hold device images and NVDEC surfaces: many streams share a
    // budget of them (2 per stream still overlap upload, kernels and download).
    const int gpu_share = std::clamp(gpu_frames_ / std::max(1, sharing), 2, 6);
    if (!o.filter.gpu_streams) o.filter.gpu_streams = gpu_share;
    // Each queued NVDEC frame holds a decode and an output surface of its decoder.
    if (!o.pipeline.queue_frames) o.pipeline.queue_frames = std::min(kDefaultQueueFrames, gpu_share);
    if (!gpus_.empty() && o.filter.device != DeviceChoice::Cpu) o.placement.gpu = least_loaded_gpu(gpus_, gpu_load_);
    place_decoder_locked(s);  // may move it to the GPU whose NVDEC is the least loaded
    if (!gpus_.empty() && o.filter.device != DeviceChoice::Cpu) ++gpu_load_[o.placement.gpu];
    const std::string name = s.name;
    auto stream = std::make_shared<ServedStream>(std::move(s), &keeper_, encoders_.get(), runtime_, watchers_.get(), clip_memory_.get());
    if (decoders_) {  // placed as one camera; counted by its real size and rate once its input opens
        stream->on_input_opened([balance = decoders_.get(), name](const VideoInfo& v, bool nvdec, bool waiting) {
            balance->input_opened(name, camera_streams(v.width, v.height, av_q2d(v.frame_rate)), nvdec, waiting,
                                  in_1080p30_cameras(v.width, v.height, 1));
        });
        stream->on_decoder_moved([balance = decoders_.get(), name](bool nvdec) { balance->moved(name, nvdec); });
    }
    stream->start();
    streams_[name] = std::move(stream);
    spdlog::info("stream '{}' started", name);
}

void StreamService::add(StreamConfig s) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) throw ServiceError(503, "vfilter serve is stopping");
    const int owner = owner_of_ ? owner_of_(s.name) : shard_count_ > 1 ? shard_of(s.name, shard_count_) : shard_index_;
    if (const std::string of = "/" + std::to_string(shard_count_); owner != shard_index_)
        throw ServiceError(409, "stream '" + s.name + "' belongs to " + (owner < 0 ? "no shard now" : "shard " + std::to_string(owner) + of) +
                                    ", not to this one (" + std::to_string(shard_index_) + of + ")");
    if (streams_.count(s.name)) throw ServiceError(409, "stream '" + s.name + "' exists (DELETE it first, or use another name)");
    if (streams_.size() >= max_streams_)
        throw ServiceError(503, "this serve runs " + std::to_string(max_streams_) + " streams already (serve: max-streams)");
    check_output_free_locked(s, "");
    start_locked(std::move(s), static_cast<int>(streams_.size()) + 1);
}

void StreamService::retire(const ServedStream& stream) {
    std::string entry = stream.summary().dump();
    entry.shrink_to_fit();  // dump() grows its text by doubling
    std::lock_guard<std::mutex> lock(mutex_);
    retired_.push_back(std::move(entry));
    if (retired_.size() <= kRetiredKept) return;
    retired_.pop_front();
    if (retired_dropped_++ == 0)
        spdlog::info("more than {} streams removed since serve started: --stats-json will list the last {} of them", kRetiredKept,
                     kRetiredKept);
}

nlohmann::json StreamService::remove(const std::string& name) {
    std::shared_ptr<ServedStream> stream;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = streams_.find(name);
        if (it == streams_.end()) throw ServiceError(404, "no stream named '" + name + "'");
        stream = std::move(it->second);
        streams_.erase(it);
        unplace(*stream);
        rebalance_decoders_locked();
    }
    stream->stop();
    stream->join();
    spdlog::info("stream '{}' removed", name);
    retire(*stream);
    return stream->summary();
}

void StreamService::set_filter(const std::string& name, const std::string& chain, const KernelFiles& files) {
    // The chain is built, and its kernel files read, outside the service's lock: a slow disk
    // holds only this request, never /streams, /metrics or /readyz. A bad chain is refused
    // (400, 403) whatever the stream's state.
    const auto find = [&](bool running) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = streams_.find(name);
        if (it == streams_.end()) throw ServiceError(404, "no stream named '" + name + "'");
        const StreamState state = it->second->state();
        if (running && state != StreamState::Running && state != StreamState::Reconnecting)
            throw ServiceError(409, "stream '" + name + "' is " + state_name(state) + ", not running");
        return it->second;  // kept alive by this copy even if removed meanwhile
    };
    std::shared_ptr<ServedStream> stream = find(false);
    try {
        // Compiled once; the stream plans it for its frames without parsing it again.
        const FilterChain compiled = compile_chain(chain);
        plan_chain(compiled.spec(), stream->config().options.filter.compat, {}, files);  // refused here, before any change
        if (find(true) != stream) throw ServiceError(409, "stream '" + name + "' was replaced while its filter was checked");
        stream->set_filter(compiled, files);
    } catch (const Forbidden& e) {
        throw ServiceError(403, "stream '" + name + "': " + e.what());
    } catch (const Error& e) {
        throw ServiceError(400, "stream '" + name + "': " + e.what());
    }
}

void StreamService::apply(const ServeConfig& config) {
    std::vector<std::shared_ptr<ServedStream>> leaving;
    std::vector<StreamConfig> starting;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (config.streams.size() > max_streams_)
            throw ServiceError(400, std::to_string(config.streams.size()) + " streams, more than serve: max-streams " +
                                        std::to_string(max_streams_));
        // Outputs: checked against the streams that stay, before anything changes.
        std::set<std::string> outputs;
        for (const StreamConfig& s : config.streams) {
            if (exclusive_output(s.options.output.path) && !outputs.insert(output_identity(s.options.output.path)).second)
                throw ServiceError(400, "stream '" + s.name + "': output '" + redact_credentials(s.options.output.path) +
                                            "' is written by another stream of the file");
        }
        for (auto it = streams_.begin(); it != streams_.end();) {
            const StreamConfig* now = nullptr;
            for (const StreamConfig& s : config.streams)
                if (s.name == it->first) now = &s;
            if (now && *now == it->second->config() && !it->second->ended()) {
                ++it;  // unchanged and running: left alone
                continue;
            }
            unplace(*it->second);
            leaving.push_back(std::move(it->second));
            it = streams_.erase(it);
        }
        for (const StreamConfig& s : config.streams)
            if (!streams_.count(s.name)) starting.push_back(s);
        defaults_ = config.defaults;
    }
    // Changed and removed streams finish their outputs before a changed one starts again on the same file.
    for (auto& s : leaving) s->stop();
    for (auto& s : leaving) {
        s->join();
        spdlog::info("stream '{}' stopped ({})", s->name(), "no longer in the config, or changed");
        retire(*s);
    }
    leaving.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return;
    const int sharing = static_cast<int>(config.streams.size());
    for (StreamConfig& s : starting) start_locked(std::move(s), sharing);
    rebalance_decoders_locked();
}

nlohmann::json StreamService::list() const {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json all = nlohmann::json::array();
    for (const auto& [name, stream] : streams_) {
        nlohmann::json j = stream->describe();
        if (decoders_)
            if (const auto p = decoders_->placement(name)) j["decoding"] = p->describe();
        all.push_back(std::move(j));
    }
    return all;
}

nlohmann::json StreamService::capacity_left() const { return decoders_ ? decoders_->capacity_left() : nlohmann::json(); }

nlohmann::json StreamService::final_stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json all = nlohmann::json::object();
    for (const auto& [name, stream] : streams_) all[name] = stream->summary();
    // Streams removed while serving keep their entry (the last kRetiredKept of them): under their
    // name when it is free, else as NAME@removed-N.
    int n = 0;
    for (const std::string& text : retired_) {
        const nlohmann::json entry = nlohmann::json::parse(text);
        const std::string name = entry["name"];
        all[all.contains(name) ? name + "@removed-" + std::to_string(++n) : name] = entry;
    }
    return all;
}

namespace {

// Where one stream decodes, for /metrics (GET /streams says why).
void collect_decoding(MetricSet& set, const std::string& stream, const DecoderPlacement& p) {
    const std::string name = metric_label("stream", stream);
    std::string where = join_labels(name, metric_label("decoder", p.nvdec ? "nvdec" : "cpu"));
    if (p.nvdec) where = join_labels(where, metric_label("gpu", std::to_string(p.gpu)));
    set.add("vfilter_stream_decoder", "gauge", "1 where the stream decodes: NVDEC (of the GPU labelled) or the CPU.", 1, where);
    set.add("vfilter_stream_decoder_load_streams", "gauge", "What the stream counts against its decoder's capacity, in 1080p30 camera streams.",
            p.load, name);
    set.add("vfilter_stream_over_capacity", "gauge", "1 while the stream's decoder was full when it was placed or became so by its size.",
            p.over_capacity ? 1 : 0, name);
    set.add("vfilter_stream_decoder_moves_total", "counter",
            "Moves of the stream between NVDEC and the CPU decoders since it started (placed by load).", p.moves, name);
}

}  // namespace

std::string StreamService::metrics() const {
    MetricSet set;
    bool gpu_in_use = false;
    std::map<std::string, int> by_state = {{"starting", 0}, {"waiting", 0}, {"running", 0},
                                           {"reconnecting", 0}, {"failed", 0}, {"stopped", 0}};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [name, stream] : streams_) {
            ++by_state[state_name(stream->state())];
            stream->collect_metrics(set);
            gpu_in_use = gpu_in_use || stream->on_gpu();
            if (const auto p = decoders_ ? decoders_->placement(name) : std::nullopt) collect_decoding(set, name, *p);
        }
    }
    for (const auto& [state, n] : by_state)
        set.add("vfilter_streams", "gauge", "Streams by state.", n, metric_label("state", state));
    if (decoders_) decoders_->collect_metrics(set);
    if (clip_memory_) {
        set.add("vfilter_clips_memory_bytes", "gauge", "What the streams' clips may hold for their pre-roll together (serve: clips-memory).",
                static_cast<double>(clip_memory_->total()));
        set.add("vfilter_clips_memory_reserved_bytes", "gauge", "Of it, what the streams with clips have reserved (each its ring's bound).",
                static_cast<double>(clip_memory_->reserved()));
    }
    if (const HeapBytes heap = heap_bytes(); heap.in_use >= 0) {
        const char* help = "malloc's heap (glibc): bytes in use by serve, and free bytes kept in its arenas, resident or not.";
        set.add("vfilter_heap_bytes", "gauge", help, static_cast<double>(heap.in_use), metric_label("state", "in_use"));
        set.add("vfilter_heap_bytes", "gauge", help, static_cast<double>(heap.free_kept), metric_label("state", "free"));
    }
#ifdef VF_HAVE_CUDA
    // Only once a stream runs on the GPU: asking earlier would create a CUDA context for nothing.
    if (gpu_in_use) collect_gpu_metrics(set, *runtime_);
#endif
    return set.text();
}

StreamFields StreamService::defaults() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return defaults_;
}

bool StreamService::ready() const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, stream] : streams_)
        if (stream->state() == StreamState::Starting) return false;
    return true;
}

bool StreamService::all_ended() const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, stream] : streams_)
        if (!stream->ended()) return false;
    return true;
}

std::shared_ptr<StreamPreview> StreamService::preview(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(name);
    if (it == streams_.end()) throw ServiceError(404, "no stream named '" + name + "'");
    return it->second->preview();
}

std::shared_ptr<WatchedStream> StreamService::watch(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(name);
    if (it == streams_.end()) throw ServiceError(404, "no stream named '" + name + "'");
    if (!it->second->watch()) throw ServiceError(404, "stream '" + name + "' does not watch itself (its entry's watch, or serve: watch, is off)");
    return it->second->watch();
}

bool StreamService::closing() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return closing_;
}

size_t StreamService::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return streams_.size();
}

void StreamService::stop_all(bool abandon) {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    for (auto& [name, stream] : streams_) stream->stop(abandon);
}

void StreamService::wait_all() {
    std::vector<ServedStream*> all;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& [name, stream] : streams_) all.push_back(stream.get());
    }
    for (ServedStream* s : all) s->join();
}

}  // namespace vf
