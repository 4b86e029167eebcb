#include "app/decoder_balance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "media/frame.hpp"

namespace vf {
namespace {

std::string percent(double used, double capacity) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", capacity > 0 ? 100 * used / capacity : 100.0);
    return text;
}

}  // namespace

nlohmann::json DecoderPlacement::describe() const {
    nlohmann::json j = {{"decoder", nvdec ? "nvdec" : "cpu"}, {"why", why}, {"load", std::round(load * 1000) / 1000}};
    if (over_capacity) j["over_capacity"] = true;
    return j;
}

DecoderBalance::DecoderBalance(DecoderCapacity capacity, int cores, std::vector<int> gpus)
    : capacity_(capacity), cores_(std::max(1, cores)), gpus_(std::move(gpus)) {
    if (gpus_.empty()) gpus_.push_back(0);
}

double DecoderBalance::cpu_capacity_locked() const {
    if (capacity_.cpu_streams > 0) return capacity_.cpu_streams;
    const double cores_left = std::max(0.0, cores_ - 2.0 - static_cast<double>(encoders_.size()) - feeder_cores_);
    return cores_left * kCpuStreamsPerCore;
}

DecoderPlacement DecoderBalance::place(const std::string& stream, int cpu_decoded_gpu, double load, double feeder_cores) {
    std::lock_guard<std::mutex> lock(mutex_);
    const double nv_cap = nvdec_capacity(), cpu_cap = cpu_capacity_locked();
    // The least loaded NVDEC; on a tie, the caller's GPU (the one with the fewest streams), so
    // that streams NVDEC did not take, counted on the CPU, still spread over the GPUs.
    int gpu = std::find(gpus_.begin(), gpus_.end(), cpu_decoded_gpu) != gpus_.end() ? cpu_decoded_gpu : gpus_.front();
    for (const int g : gpus_)
        if (nvdec_load_[g] < nvdec_load_[gpu]) gpu = g;
    const double nv_after = (nvdec_load_[gpu] + load) / nv_cap;
    const double cpu_after = cpu_cap > 0 ? (cpu_load_ + load) / cpu_cap : INFINITY;
    DecoderPlacement p;
    // Up to half its capacity NVDEC takes every stream, leaving the cores to encoders and to what
    // the counts miss; beyond, the less loaded side (so both fill up together).
    p.nvdec = !capacity_.by_load || nv_after <= std::max(cpu_after, kNvdecAlone);
    p.gpu = p.nvdec ? gpu : cpu_decoded_gpu;
    p.over_capacity = std::min(nv_after, cpu_after) > 1;
    const std::string nv = "NVDEC of GPU " + std::to_string(gpu) + " " + percent(nvdec_load_[gpu], nv_cap) + " used";
    const std::string cpu = "CPU decoders " + percent(cpu_load_, cpu_cap) + " used";
    if (!capacity_.by_load) p.over_capacity = nv_after > 1;
    p.why = !capacity_.by_load ? nv + " (--decoder-placement nvdec)" + (p.over_capacity ? ": full, this stream is over capacity" : "")
                               : (p.nvdec ? nv + ", " + cpu : cpu + ", " + nv) + (p.over_capacity ? ": both full, this stream is over capacity" : "");
    p.load = load;
    if (p.nvdec) nvdec_load_[gpu] += load, feeder_cores_ += feeder_cores;
    else cpu_load_ += load;
    streams_[stream] = {p, load, p.nvdec ? feeder_cores : 0.0};
    return p;
}

DecoderPlacement DecoderBalance::count(const std::string& stream, bool nvdec, int gpu, const std::string& why, double load,
                                       double feeder_cores) {
    std::lock_guard<std::mutex> lock(mutex_);
    DecoderPlacement p;
    p.nvdec = nvdec;
    p.gpu = gpu;
    p.chosen = false;
    p.why = why;
    p.load = load;
    if (nvdec) nvdec_load_[gpu] += load, feeder_cores_ += feeder_cores;
    else cpu_load_ += load;
    p.over_capacity = nvdec ? nvdec_load_[gpu] > nvdec_capacity() : cpu_load_ > cpu_capacity_locked();
    streams_[stream] = {p, load, nvdec ? feeder_cores : 0.0};
    return p;
}

double camera_streams(int width, int height, double fps) {
    if (width <= 0 || height <= 0) return 1;
    return std::max(kLeastLoad, in_1080p30_cameras(width, height, fps));
}

void DecoderBalance::input_opened(const std::string& stream, double load, bool nvdec) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end() || !(load > 0)) return;
    Placed& placed = it->second;
    DecoderPlacement& p = placed.placement;
    // Out of the count where it was placed, into the count where it decodes.
    if (p.nvdec) {
        nvdec_load_[p.gpu] = std::max(0.0, nvdec_load_[p.gpu] - placed.load);
        feeder_cores_ = std::max(0.0, feeder_cores_ - placed.feeder_cores);
    } else {
        cpu_load_ = std::max(0.0, cpu_load_ - placed.load);
    }
    if (p.nvdec && !nvdec) {
        p.why += "; NVDEC did not take it (its codec or format, or no GPU): it decodes on the CPU";
        placed.feeder_cores = 0;
    }
    p.nvdec = p.nvdec && nvdec;
    placed.load = p.load = load;
    if (p.nvdec) {
        nvdec_load_[p.gpu] += load;
        feeder_cores_ += placed.feeder_cores;
        p.over_capacity = nvdec_load_[p.gpu] > nvdec_capacity() + 1e-9;
    } else {
        cpu_load_ += load;
        p.over_capacity = cpu_load_ > cpu_capacity_locked() + 1e-9;
    }
}

void DecoderBalance::encoder_started(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    encoders_[stream] = true;
}

void DecoderBalance::release(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    encoders_.erase(stream);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return;
    const Placed& placed = it->second;
    const DecoderPlacement& p = placed.placement;
    if (p.nvdec) {
        nvdec_load_[p.gpu] = std::max(0.0, nvdec_load_[p.gpu] - placed.load);
        feeder_cores_ = std::max(0.0, feeder_cores_ - placed.feeder_cores);
    } else {
        cpu_load_ = std::max(0.0, cpu_load_ - placed.load);
    }
    streams_.erase(it);
}

std::optional<DecoderPlacement> DecoderBalance::placement(const std::string& stream) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return std::nullopt;
    return it->second.placement;
}

nlohmann::json DecoderBalance::capacity_left() const {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json nv = nlohmann::json::object();
    double total = 0;
    for (const int g : gpus_) {
        const auto it = nvdec_load_.find(g);
        const double left = std::max(0.0, nvdec_capacity() - (it == nvdec_load_.end() ? 0.0 : it->second));
        nv[std::to_string(g)] = std::floor(left);
        total += std::floor(left);
    }
    const double cpu = std::floor(std::max(0.0, cpu_capacity_locked() - cpu_load_));
    return {{"unit", "1080p30 camera streams"}, {"nvdec", nv}, {"cpu", cpu}, {"total", total + cpu}};
}

void DecoderBalance::collect_metrics(MetricSet& set) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const int g : gpus_) {
        const auto it = nvdec_load_.find(g);
        const double load = it == nvdec_load_.end() ? 0.0 : it->second;
        const std::string labels = join_labels(metric_label("decoder", "nvdec"), metric_label("gpu", std::to_string(g)));
        set.add("vfilter_decoder_load_streams", "gauge", "Streams decoding there, in 1080p30 camera streams.", load, labels);
        set.add("vfilter_decoder_capacity_streams", "gauge", "What decodes there in real time, in 1080p30 camera streams (measured or set).",
                nvdec_capacity(), labels);
    }
    const std::string labels = metric_label("decoder", "cpu");
    set.add("vfilter_decoder_load_streams", "gauge", "Streams decoding there, in 1080p30 camera streams.", cpu_load_, labels);
    set.add("vfilter_decoder_capacity_streams", "gauge", "What decodes there in real time, in 1080p30 camera streams (measured or set).",
            cpu_capacity_locked(), labels);
    double left = std::max(0.0, cpu_capacity_locked() - cpu_load_);
    for (const int g : gpus_) {
        const auto it = nvdec_load_.find(g);
        left += std::max(0.0, nvdec_capacity() - (it == nvdec_load_.end() ? 0.0 : it->second));
    }
    set.add("vfilter_decoder_capacity_left_streams", "gauge",
            "More 1080p30 camera streams that would still decode in real time, on NVDEC and the CPU together.", std::floor(left));
}

}  // namespace vf
