#include "app/serve/decoder_balance.hpp"

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

// Why a stream that is not placed by load went to NVDEC.
std::string nvdec_rule(const DecoderCapacity& capacity) {
    return capacity.cameras_by_load ? " (a file: NVDEC decodes it fastest)" : " (serve: decoder-placement nvdec)";
}

}  // namespace

nlohmann::json DecoderPlacement::describe() const {
    nlohmann::json j = {{"decoder", nvdec ? "nvdec" : "cpu"}, {"why", why}, {"load", std::round(load * 1000) / 1000}};
    if (over_capacity) j["over_capacity"] = true;
    if (moving) j["moving"] = true;
    if (moves > 0) j["moves"] = moves;
    return j;
}

DecoderBalance::DecoderBalance(DecoderCapacity capacity, int cores, std::vector<int> gpus)
    : capacity_(capacity), cores_(std::max(1, cores)), gpus_(std::move(gpus)) {
    if (gpus_.empty()) gpus_.push_back(0);
}

double DecoderBalance::cpu_capacity_locked() const {
    if (capacity_.cpu_streams > 0) return capacity_.cpu_streams;
    if (cpu_measured_ >= 0) return cpu_measured_;
    const double cores_left = std::max(0.0, cores_ - 2.0 - static_cast<double>(encoders_.size()) - feeder_cores_);
    return cores_left * kCpuStreamsPerCore;
}

DecoderPlacement DecoderBalance::place(const std::string& stream, int cpu_decoded_gpu, double load, double feeder_cores,
                                       bool camera) {
    std::lock_guard<std::mutex> lock(mutex_);
    // The least loaded NVDEC for its capacity; on a tie, the caller's GPU (the one with the fewest
    // streams), so that streams NVDEC did not take, counted on the CPU, still spread over the GPUs.
    int gpu = std::find(gpus_.begin(), gpus_.end(), cpu_decoded_gpu) != gpus_.end() ? cpu_decoded_gpu : gpus_.front();
    const auto used = [&](int g) { return nvdec_load_locked(g) / nvdec_capacity_locked(g); };
    for (const int g : gpus_)
        if (used(g) < used(gpu)) gpu = g;
    const double nv_cap = nvdec_capacity_locked(gpu), cpu_cap = cpu_capacity_locked();
    const double nv_after = (nvdec_load_locked(gpu) + load) / nv_cap;
    const double cpu_after = cpu_cap > 0 ? (cpu_load_ + load) / cpu_cap : INFINITY;
    DecoderPlacement p;
    // Up to half its capacity NVDEC takes every stream, leaving the cores to encoders and to what
    // the counts miss; beyond, the less loaded side (so both fill up together).
    const bool by_load = places_by_load(camera);
    p.nvdec = !by_load || nv_after <= std::max(cpu_after, kNvdecAlone);
    p.gpu = p.nvdec ? gpu : cpu_decoded_gpu;
    p.over_capacity = std::min(nv_after, cpu_after) > 1;
    const std::string nv = "NVDEC of GPU " + std::to_string(gpu) + " " + percent(nvdec_load_locked(gpu), nv_cap) + " used";
    const std::string cpu = "CPU decoders " + percent(cpu_load_, cpu_cap) + " used";
    if (!by_load) p.over_capacity = nv_after > 1;
    p.why = !by_load ? nv + nvdec_rule(capacity_) + (p.over_capacity ? ": full, this stream is over capacity" : "")
                               : (p.nvdec ? nv + ", " + cpu : cpu + ", " + nv) + (p.over_capacity ? ": both full, this stream is over capacity" : "");
    p.load = load;
    forget_cpu_wait_locked(stream);  // placed again: its old room goes
    streams_[stream] = {p, load, 0.0, feeder_cores, false, ""};
    streams_[stream].by_load = by_load;
    count_locked(stream);  // its over capacity is the rule above: beyond both sides, not only its own
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
    forget_cpu_wait_locked(stream);  // placed again: its old room goes
    streams_[stream] = {p, load, 0.0, feeder_cores, false, ""};
    p.over_capacity = streams_[stream].placement.over_capacity = count_locked(stream);
    return p;
}

double camera_streams(int width, int height, double fps) {
    if (width <= 0 || height <= 0) return 1;
    return std::max(kLeastLoad, in_1080p30_cameras(width, height, fps));
}

void DecoderBalance::uncount_locked(const std::string& stream) {
    Placed& placed = streams_.at(stream);
    const DecoderPlacement& p = placed.placement;
    if (p.nvdec) {
        nvdec_load_[p.gpu] = std::max(0.0, nvdec_load_[p.gpu] - placed.load);
        ++nvdec_measures_[p.gpu].changes;
        feeder_cores_ = std::max(0.0, feeder_cores_ - placed.feeder_cores);
    } else {
        cpu_load_ = std::max(0.0, cpu_load_ - placed.load);
    }
    placed.feeder_cores = 0;
}

bool DecoderBalance::count_locked(const std::string& stream) {
    Placed& placed = streams_.at(stream);
    const DecoderPlacement& p = placed.placement;
    if (p.nvdec) {
        nvdec_load_[p.gpu] += placed.load;
        ++nvdec_measures_[p.gpu].changes;
        placed.feeder_cores = placed.nvdec_feeder_cores;
        feeder_cores_ += placed.feeder_cores;
        return nvdec_load_[p.gpu] > nvdec_capacity_locked(p.gpu) + 1e-9;
    }
    cpu_load_ += placed.load;
    return cpu_load_ > cpu_capacity_locked() + 1e-9;
}

double DecoderBalance::nvdec_load_locked(int gpu) const {
    const auto it = nvdec_load_.find(gpu);
    return it == nvdec_load_.end() ? 0.0 : it->second;
}

void DecoderBalance::forget_cpu_wait_locked(const std::string& stream) {
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return;
    cpu_wait_reserved_ = std::max(0.0, cpu_wait_reserved_ - it->second.cpu_wait_reserved);
    it->second.cpu_wait_reserved = 0;
}

bool DecoderBalance::may_wait_on_cpu(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end() || !it->second.placement.nvdec) return false;
    Placed& placed = it->second;
    if (cpu_load_ + cpu_wait_reserved_ + placed.load > cpu_capacity_locked() + 1e-9) return false;
    placed.cpu_wait_reserved = placed.load;
    cpu_wait_reserved_ += placed.load;
    return true;
}

void DecoderBalance::input_opened(const std::string& stream, double load, bool nvdec, bool waiting_for_nvdec,
                                  double frame_cameras) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return;
    Placed& placed = it->second;
    forget_cpu_wait_locked(stream);  // counted where it decodes from now on
    if (!(load > 0)) return;
    DecoderPlacement& p = placed.placement;
    // Out of the count where it was placed, into the count where it decodes.
    uncount_locked(stream);
    const bool refused = p.nvdec && !nvdec && !waiting_for_nvdec;
    if (refused) p.why += "; NVDEC did not take it (its codec or format, or no GPU): it decodes on the CPU";
    if (waiting_for_nvdec) {
        p.why += "; the CPU decodes it until a shared NVDEC decoder has room (nvdec-share)";
        placed.waiting_for_nvdec = true;
    }
    p.nvdec = p.nvdec && nvdec;
    placed.load = p.load = load;
    placed.frame_cameras = frame_cameras;
    placed.movable = placed.by_load && p.chosen && !refused;
    p.over_capacity = count_locked(stream);
}

std::optional<DecoderBalance::Move> DecoderBalance::next_move() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!capacity_.moves || !(capacity_.by_load || capacity_.cameras_by_load)) return std::nullopt;
    const double cpu_cap = cpu_capacity_locked();
    const double cpu_now = cpu_cap > 0 ? cpu_load_ / cpu_cap : INFINITY;
    std::optional<Move> best;
    double best_score = 0;
    for (const auto& [name, placed] : streams_) {
        const DecoderPlacement& p = placed.placement;
        if (!placed.movable || p.moving) continue;
        const double nv = nvdec_load_locked(p.gpu), nv_cap = nvdec_capacity_locked(p.gpu);
        double score = 0;
        if (!p.nvdec) {
            const double nv_after = (nv + placed.load) / nv_cap;
            if (nv_after <= kNvdecAlone) score = 2 + cpu_now - nv_after;  // as place() would put it now: first
            else if (nv_after + kMoveMargin <= cpu_now) score = cpu_now - nv_after;
        } else {
            const double nv_now = nv / nv_cap;
            const double cpu_after = cpu_cap > 0 ? (cpu_load_ + placed.load) / cpu_cap : INFINITY;
            if (nv_now > kNvdecAlone && cpu_after + kMoveMargin <= nv_now) score = nv_now - cpu_after;
            else if (nv_now > 1 && cpu_after <= 1) score = nv_now - cpu_after;  // NVDEC beyond capacity: to room
        }
        if (score <= best_score) continue;
        best_score = score;
        const std::string nv_text = "NVDEC of GPU " + std::to_string(p.gpu) + " " + percent(nv, nv_cap) + " used";
        const std::string cpu_text = "CPU decoders " + percent(cpu_load_, cpu_cap) + " used";
        best = Move{name, !p.nvdec, p.nvdec ? nv_text + ", " + cpu_text : cpu_text + ", " + nv_text};
    }
    return best;
}

void DecoderBalance::moving(const Move& move) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(move.stream);
    if (it == streams_.end()) return;
    uncount_locked(move.stream);
    DecoderPlacement& p = it->second.placement;
    p.nvdec = move.to_nvdec;
    p.moving = true;
    it->second.move_reason = move.why;
    p.why = "moving to " + std::string(move.to_nvdec ? "NVDEC" : "the CPU") + " at its next key frame (" + move.why + ")";
    p.over_capacity = count_locked(move.stream);
}

void DecoderBalance::cannot_move(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it != streams_.end()) it->second.movable = false;
}

void DecoderBalance::moved(const std::string& stream, bool nvdec) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return;
    Placed& placed = it->second;
    DecoderPlacement& p = placed.placement;
    if (placed.waiting_for_nvdec && !p.moving) {  // its own move, once its shared decoder had room
        placed.waiting_for_nvdec = false;
        uncount_locked(stream);
        p.nvdec = nvdec;
        ++p.moves;
        p.why = nvdec ? "moved to NVDEC of GPU " + std::to_string(p.gpu) + " once a shared decoder had room (the CPU decoded it meanwhile)"
                      : p.why + "; NVDEC did not take it when its shared decoder had room: it decodes on the CPU";
        p.over_capacity = count_locked(stream);
        return;
    }
    placed.waiting_for_nvdec = false;
    p.moving = false;
    if (p.nvdec) ++nvdec_measures_[p.gpu].changes;  // its frames come from NVDEC from now on
    if (p.nvdec && !nvdec) {  // NVDEC would not take it: on the CPU it stays
        uncount_locked(stream);
        p.nvdec = false;
        p.why += "; NVDEC did not take it: it decodes on the CPU";
        placed.movable = false;
        p.over_capacity = count_locked(stream);
        return;
    }
    ++p.moves;
    p.why = "moved to " + std::string(nvdec ? "NVDEC" : "the CPU") + " (when it was asked: " + placed.move_reason + ")";
}

void DecoderBalance::encoder_started(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    encoders_[stream] = true;
}

void DecoderBalance::release(const std::string& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    encoders_.erase(stream);
    if (!streams_.count(stream)) return;
    uncount_locked(stream);
    forget_cpu_wait_locked(stream);
    streams_.erase(stream);
}

double DecoderBalance::nvdec_capacity_locked(int gpu) const {
    if (capacity_.nvdec_streams > 0) return capacity_.nvdec_streams;
    const auto m = nvdec_measures_.find(gpu);
    return m != nvdec_measures_.end() && m->second.capacity > 0 ? m->second.capacity : kNvdecStreamsStartingEstimate;
}

std::string DecoderBalance::nvdec_capacity_from_locked(int gpu) const {
    if (capacity_.nvdec_streams > 0) return "set";
    const auto m = nvdec_measures_.find(gpu);
    return m != nvdec_measures_.end() && m->second.capacity > 0 ? "measured" : "default";
}

double DecoderBalance::nvdec_capacity(int gpu) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return nvdec_capacity_locked(gpu);
}

std::string DecoderBalance::nvdec_capacity_from(int gpu) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return nvdec_capacity_from_locked(gpu);
}

bool DecoderBalance::nvdec_settled_locked(int gpu) const {
    for (const auto& [name, placed] : streams_) {
        const DecoderPlacement& p = placed.placement;
        if (!p.nvdec || p.gpu != gpu) continue;
        if (placed.frame_cameras <= 0 || p.moving || placed.waiting_for_nvdec) return false;
    }
    return true;
}

namespace {

// Two samples agree when they are within kNvdecSteady of each other.
bool steady(double now, double before) { return std::abs(now - before) <= kNvdecSteady * std::max(now, before); }

}  // namespace

std::vector<std::string> DecoderBalance::nvdec_sampled(const std::map<int, double>& busy,
                                                       const std::map<std::string, int64_t>& frames, double now_s) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> said;
    for (const auto& [gpu, b] : busy) {
        if (std::find(gpus_.begin(), gpus_.end(), gpu) == gpus_.end()) continue;
        NvdecMeasure& m = nvdec_measures_[gpu];
        const double busy_before = m.busy, rate_before = m.rate;
        m.busy = b;
        m.rate = -1;
        const bool comparable = m.sampled_s >= 0 && now_s > m.sampled_s && m.changes == m.changes_seen && nvdec_settled_locked(gpu);
        const double seconds = now_s - m.sampled_s;
        m.changes_seen = m.changes;
        m.sampled_s = now_s;
        if (!comparable) continue;
        // The frames decoded on this NVDEC since the last sample, in camera streams, and what its
        // streams' own rates ask of it.
        double cameras = 0, due = 0;
        for (const auto& [name, placed] : streams_) {
            if (!placed.placement.nvdec || placed.placement.gpu != gpu) continue;
            const auto now = frames.find(name);
            const auto before = frames_seen_.find(name);
            if (now == frames.end() || before == frames_seen_.end() || now->second < before->second) {
                cameras = -1;  // new, gone, or a new job since: this period is not known whole
                break;
            }
            cameras += static_cast<double>(now->second - before->second) * placed.frame_cameras / seconds;
            due += placed.load;
        }
        if (cameras <= 0) continue;
        m.rate = cameras;
        // NVML's period is not this one: while streams start or end, the frames counted and the
        // busy it gives part ways (a run's last sample said 13% busy for frames that had kept it
        // full), so only a period like the one before teaches.
        if (capacity_.nvdec_streams > 0 || b < kNvdecLearnBusy || rate_before <= 0 || !steady(cameras, rate_before) ||
            !steady(b, busy_before))
            continue;
        char how[200];
        if (b >= kNvdecFullBusy && cameras < (1 - kNvdecShortfall) * due) {
            m.capacity = cameras;  // full: what it kept is what it decodes
            m.full_busy = b;
            std::snprintf(how, sizeof how, "full: %.1f camera streams' worth of frames decoded of %.1f due, NVDEC %.0f%% busy", cameras,
                          due, 100 * b);
        } else {
            const double sample = cameras / b * m.full_busy;
            m.capacity = m.capacity > 0 ? m.capacity + kNvdecLearnWeight * (sample - m.capacity) : sample;
            std::snprintf(how, sizeof how, "%.1f camera streams' worth of frames kept NVDEC %.0f%% busy", cameras, 100 * b);
        }
        m.how = how;
        if (m.logged <= 0 || std::abs(m.capacity - m.logged) > kNvdecLoggedChange * m.logged) {
            char line[256];
            std::snprintf(line, sizeof line, "GPU %d: NVDEC capacity %s %.0f camera streams (%s)", gpu,
                          m.logged <= 0 ? "measured:" : "now", m.capacity, how);
            said.push_back(line);
            m.logged = m.capacity;
        }
    }
    frames_seen_ = frames;
    return said;
}

void DecoderBalance::cpu_sampled(double idle_cores) {
    std::lock_guard<std::mutex> lock(mutex_);
    cpu_idle_cores_ = cpu_idle_cores_ < 0 ? idle_cores : cpu_idle_cores_ + kCpuIdleWeight * (idle_cores - cpu_idle_cores_);
    // The room is the idle cores' now, beyond the load carried now: streams placed or moved there
    // before the next sample fill it rather than grow it.
    cpu_measured_ = cpu_load_ + std::max(0.0, cpu_idle_cores_ - kCpuSpareCores) * kCpuStreamsPerCore;
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
    nlohmann::json capacities = nlohmann::json::object();
    for (const int g : gpus_) {
        const double capacity = nvdec_capacity_locked(g);
        const double left = std::max(0.0, capacity - nvdec_load_locked(g));
        nv[std::to_string(g)] = std::floor(left);
        total += std::floor(left);
        nlohmann::json c = {{"streams", std::round(capacity * 10) / 10}, {"from", nvdec_capacity_from_locked(g)}};
        const auto m = nvdec_measures_.find(g);
        if (m != nvdec_measures_.end() && m->second.busy >= 0) c["busy"] = m->second.busy;
        if (m != nvdec_measures_.end() && !m->second.how.empty()) c["how"] = m->second.how;
        capacities[std::to_string(g)] = c;
    }
    const double cpu = std::floor(std::max(0.0, cpu_capacity_locked() - cpu_load_));
    return {{"unit", "1080p30 camera streams"}, {"nvdec", nv}, {"cpu", cpu}, {"total", total + cpu}, {"nvdec_capacity", capacities}};
}

void DecoderBalance::collect_metrics(MetricSet& set) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const int g : gpus_) {
        const double load = nvdec_load_locked(g);
        const std::string labels = join_labels(metric_label("decoder", "nvdec"), metric_label("gpu", std::to_string(g)));
        set.add("vfilter_decoder_load_streams", "gauge", "Streams decoding there, in 1080p30 camera streams.", load, labels);
        set.add("vfilter_decoder_capacity_streams", "gauge", "What decodes there in real time, in 1080p30 camera streams (measured or set).",
                nvdec_capacity_locked(g), labels);
        set.add("vfilter_decoder_capacity_measured", "gauge",
                "1 when this NVDEC's capacity was learned from NVML, 0 when it is set or the default.",
                nvdec_capacity_from_locked(g) == "measured" ? 1.0 : 0.0, labels);
        const auto m = nvdec_measures_.find(g);
        if (m != nvdec_measures_.end() && m->second.busy >= 0)
            set.add("vfilter_nvdec_busy_ratio", "gauge", "The share of NVML's last period in which this GPU's NVDEC decoded (every process).",
                    m->second.busy, metric_label("gpu", std::to_string(g)));
    }
    const std::string labels = metric_label("decoder", "cpu");
    set.add("vfilter_decoder_load_streams", "gauge", "Streams decoding there, in 1080p30 camera streams.", cpu_load_, labels);
    set.add("vfilter_decoder_capacity_streams", "gauge", "What decodes there in real time, in 1080p30 camera streams (measured or set).",
            cpu_capacity_locked(), labels);
    double left = std::max(0.0, cpu_capacity_locked() - cpu_load_);
    for (const int g : gpus_) left += std::max(0.0, nvdec_capacity_locked(g) - nvdec_load_locked(g));
    set.add("vfilter_decoder_capacity_left_streams", "gauge",
            "More 1080p30 camera streams that would still decode in real time, on NVDEC and the CPU together.", std::floor(left));
}

}  // namespace vf
