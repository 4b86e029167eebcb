// StreamService's decoders: which GPU and which decoder (NVDEC or the CPU) each stream gets, the
// NVDEC sampler that learns each GPU's decoding capacity, and the moves it then asks for
// (app/serve/decoder_balance.hpp decides; this applies).
#include "app/serve/stream_service.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "common/idle_cores.hpp"
#include "decode/live_input.hpp"
#include "decode/nvdec_busy_meter.hpp"
#include "decode/pattern_url.hpp"
#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {

int least_loaded_gpu(const std::vector<int>& gpus, const std::map<int, int>& load) {
    int best = gpus.empty() ? 0 : gpus.front(), best_load = -1;
    for (const int g : gpus) {
        const auto it = load.find(g);
        const int n = it == load.end() ? 0 : it->second;
        if (best_load < 0 || n < best_load) best = g, best_load = n;
    }
    return best;
}

void StreamService::unplace(const ServedStream& stream) {
    const RunOptions& o = stream.config().options;
    if (!gpus_.empty() && o.filter.device != DeviceChoice::Cpu && gpu_load_[o.placement.gpu] > 0) --gpu_load_[o.placement.gpu];
    if (decoders_) decoders_->release(stream.name());
}

void StreamService::rebalance_decoders_locked() {
    if (!decoders_ || closing_) return;
    // Each move is counted on its new side before the next is chosen; at most one per stream.
    for (size_t asked = 0; asked < streams_.size(); ++asked) {
        const std::optional<DecoderBalance::Move> move = decoders_->next_move();
        if (!move) return;
        const auto it = streams_.find(move->stream);
        if (it != streams_.end() && it->second->move_decoder(move->to_nvdec)) {
            decoders_->moving(*move);
            spdlog::info("stream '{}' moves to {} at its next key frame ({})", move->stream, move->to_nvdec ? "NVDEC" : "the CPU",
                         move->why);
        } else {
            decoders_->cannot_move(move->stream);
        }
    }
}

void StreamService::set_gpus(std::vector<int> gpus, DecoderCapacity capacity) {
    stop_nvdec_sampler();
    gpus_ = std::move(gpus);
    nvdec_share_ = capacity.nvdec_share;
    decoders_.reset();
    if (gpus_.empty()) return;
    decoders_ = std::make_unique<DecoderBalance>(capacity, static_cast<int>(std::thread::hardware_concurrency()), gpus_);
#ifdef VF_HAVE_CUDA
    nvdec_sampler_stop_ = false;
    nvdec_sampler_ = std::thread([this] { sample_nvdec(); });
#endif
}

void StreamService::stop_nvdec_sampler() {
    if (!nvdec_sampler_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        nvdec_sampler_stop_ = true;
    }
    nvdec_sampler_wake_.notify_all();
    nvdec_sampler_.join();
}

void StreamService::sample_nvdec() {
    std::map<int, std::string> buses;
#ifdef VF_HAVE_CUDA
    for (const int g : gpus_) buses[g] = gpu_pci_bus_id(g);
#endif
    const NvdecBusyMeter meter(buses);  // NVML starts here, off serve's start
    IdleCoresMeter idle;
    const bool learns = decoders_->nvdec_capacity_from(gpus_.front()) != "set";
    if (!meter.available()) {
        if (learns)
            spdlog::info("NVDEC's utilisation cannot be read ({}): each GPU's NVDEC capacity stays at its starting estimate, "
                         "{:.0f} camera streams (the serve: block's nvdec-capacity sets it)",
                         meter.unavailable(), kNvdecStreamsStartingEstimate);
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (nvdec_sampler_wake_.wait_for(lock, std::chrono::seconds(1), [this] { return nvdec_sampler_stop_; })) return;
        std::map<std::string, int64_t> frames;
        for (const auto& [name, stream] : streams_) frames[name] = stream->frames_in();
        lock.unlock();
        std::map<int, double> busy;
        for (const int g : gpus_)
            if (const std::optional<double> b = meter.busy(g)) busy[g] = *b;
        const double now_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (const std::string& line : decoders_->nvdec_sampled(busy, frames, now_s)) spdlog::info("{}", line);
        if (const std::optional<double> cores = idle.sample()) decoders_->cpu_sampled(*cores);
        lock.lock();
        if (learns) rebalance_decoders_locked();
    }
}

NvdecDecoderKind serve_nvdec_decoder(const StreamConfig& s, bool nvdec_share) {
    // vfilter's NVDEC decoder takes less CPU a frame than FFmpeg's, and FFmpeg's cannot share
    // decoders; for the codecs it does not decode, FFmpeg's drives NVDEC all the same.
    if (nvdec_share || !s.fields.count("nvdec-decoder")) return NvdecDecoderKind::Vfilter;
    return s.options.input.nvdec_decoder;
}

void StreamService::place_decoder_locked(StreamConfig& s) {
    RunOptions& o = s.options;
    if (!decoders_ || o.input.url.empty() || is_pattern_url(o.input.url)) return;  // built-in pictures: no decoder
    o.input.nvdec_decoder = serve_nvdec_decoder(s, nvdec_share_);
    o.placement.nvdec_share = nvdec_share_;
    const bool gpu_filter = o.filter.device != DeviceChoice::Cpu;
    const double feeder_cores = o.input.nvdec_decoder == NvdecDecoderKind::Vfilter ? kNvdecFeederCoresVfilter : kNvdecFeederCores;
    if (gpu_filter && o.input.hwdec == HwDecode::Auto) {
        // A camera (live, or paced as one) by load; a file on NVDEC: CPU-decoded files finish last.
        const bool live = o.input.realtime || is_live_url(o.input.url);
        const DecoderPlacement p = decoders_->place(s.name, o.placement.gpu, 1, feeder_cores, live);
        o.placement.gpu = p.gpu;
        if (!p.nvdec) o.input.hwdec = HwDecode::None;
        // Shared NVDEC decoders: a file may start on the CPU while its decoder is made, then move,
        // as many as the CPU decoders carry; cameras wait for NVDEC (decode/file_source.hpp).
        o.placement.nvdec_wait_on_cpu = nvdec_share_ && p.nvdec && !live && decoders_->may_wait_on_cpu(s.name);
        o.placement.decoder_movable = decoders_->moves_streams(live) || o.placement.nvdec_wait_on_cpu;
        spdlog::info("stream '{}' decodes on {} ({})", s.name, p.nvdec ? "NVDEC of GPU " + std::to_string(p.gpu) : "the CPU", p.why);
    } else {
        const bool nvdec = gpu_filter && o.input.hwdec == HwDecode::Cuda;
        decoders_->count(s.name, nvdec, o.placement.gpu,
                         !gpu_filter ? "it filters on the CPU" : nvdec ? "hwdec: cuda in its entry" : "hwdec: none in its entry", 1,
                         feeder_cores);
    }
    const bool cpu_encoder = o.output.path != "null" && o.output.codec != "copy" && o.output.codec.find("nvenc") == std::string::npos;
    if (cpu_encoder) decoders_->encoder_started(s.name);
}

}  // namespace vf
