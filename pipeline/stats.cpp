#include "pipeline/stats.hpp"

#include <algorithm>
#include <cstdio>

namespace vf {

void LatencyHistogram::add(double ms) {
    int b = static_cast<int>(ms * 2.0);
    b = std::clamp(b, 0, kBuckets - 1);
    ++buckets_[b];
    ++count_;
}

double LatencyHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    const int64_t target = static_cast<int64_t>(p / 100.0 * static_cast<double>(count_ - 1)) + 1;
    int64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
        seen += buckets_[b];
        if (seen >= target) return (b + 0.5) / 2.0;
    }
    return kBuckets / 2.0;
}

nlohmann::json to_json(const RunStats& s) {
    nlohmann::json j;
    j["input"] = s.input;
    j["output"] = s.output;
    j["filters"] = s.filters;
    j["filter_threads"] = s.filter_threads;
    j["frames_in"] = s.frames_in;
    j["frames_out"] = s.frames_out;
    j["frames_dropped"] = s.frames_dropped;
    j["packets_passed_through"] = s.packets_passed;
    j["wall_seconds"] = s.wall_s;
    j["sustained_fps"] = s.sustained_fps;
    j["average_fps"] = s.average_fps;
    j["warmup_frames"] = s.warmup_frames;
    j["latency_ms"] = {{"p50", s.latency_p50_ms}, {"p99", s.latency_p99_ms}};
    j["bottleneck"] = s.bottleneck;
    j["stages"] = nlohmann::json::array();
    for (const auto& st : s.stages)
        j["stages"].push_back(
            {{"name", st.name}, {"busy_seconds", st.busy_s}, {"busy_share", st.busy_share}, {"ms_per_frame", st.ms_per_frame}});
    j["input_damage"] = s.damage;
    return j;
}

std::string format_summary(const RunStats& s) {
    char buf[512];
    std::string out;
    std::snprintf(buf, sizeof buf, "frames: %lld in, %lld out, %lld dropped; %lld packets passed through\n",
                  static_cast<long long>(s.frames_in), static_cast<long long>(s.frames_out),
                  static_cast<long long>(s.frames_dropped), static_cast<long long>(s.packets_passed));
    out += buf;
    std::snprintf(buf, sizeof buf, "speed: %.1f fps sustained (first %lld frames excluded), %.1f fps average, %.2f s wall\n",
                  s.sustained_fps, static_cast<long long>(s.warmup_frames), s.average_fps, s.wall_s);
    out += buf;
    std::snprintf(buf, sizeof buf, "latency: p50 %.1f ms, p99 %.1f ms (read to written)\n", s.latency_p50_ms, s.latency_p99_ms);
    out += buf;
    out += "stages (busy share of wall time, ms per frame):";
    for (const auto& st : s.stages) {
        std::snprintf(buf, sizeof buf, " %s %.0f%% %.2f ms;", st.name.c_str(), 100 * st.busy_share, st.ms_per_frame);
        out += buf;
    }
    out.pop_back();
    out += "\nbottleneck: " + s.bottleneck + "\n";
    if (!s.damage.empty()) out += "input damage: " + s.damage + "\n";
    return out;
}

}  // namespace vf
