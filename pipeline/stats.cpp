#include "pipeline/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vf {

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
    j["live"] = s.live;
    j["reconnects"] = s.reconnects;
    j["input_gap_seconds"] = s.input_gap_s;
    j["damaged_at_cuts"] = s.damaged_at_cuts;
    j["bottleneck"] = s.bottleneck;
    j["stages"] = nlohmann::json::array();
    for (const auto& st : s.stages)
        j["stages"].push_back(
            {{"name", st.name}, {"busy_seconds", st.busy_s}, {"busy_share", st.busy_share}, {"ms_per_frame", st.ms_per_frame},
             {"p99_ms", st.p99_ms}, {"gpu", st.gpu}});
    j["device"] = s.device;
    j["hw_decode"] = s.hw_decode;
    if (!s.nvdec_decoder.empty()) j["nvdec_decoder"] = s.nvdec_decoder;
    j["gpu_streams"] = s.gpu_streams;
    j["gpu_ms_per_frame"] = s.gpu_ms_per_frame;
    j["gpu_kernels"] = s.gpu_kernels;
    j["gpu_frames_per_launch"] = s.gpu_frames_per_launch;
    j["host_copies_per_frame"] = s.host_copies_per_frame;
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
    if (s.live && (s.reconnects || s.input_gap_s > 0)) {
        std::snprintf(buf, sizeof buf, "input: reconnected %lld times, down %.1f s in all, %lld frames or packets damaged at the cuts\n",
                      static_cast<long long>(s.reconnects), s.input_gap_s, static_cast<long long>(s.damaged_at_cuts));
        out += buf;
    }
    out += "stages (busy share of wall time, mean / p99 ms per frame):";
    for (const auto& st : s.stages) {
        std::snprintf(buf, sizeof buf, " %s%s %.0f%% %.2f/%.2f ms;", st.name.c_str(), st.gpu ? " (GPU)" : "",
                      100 * st.busy_share, st.ms_per_frame, st.p99_ms);
        out += buf;
    }
    out.pop_back();
    if (s.device == "cuda") {
        std::snprintf(buf, sizeof buf, "\nGPU: %d streams, %.3f ms GPU time per frame, decode %s, %.2f host copies per frame",
                      s.gpu_streams, s.gpu_ms_per_frame, s.hw_decode == "cuda" ? "on NVDEC" : "on the CPU",
                      s.host_copies_per_frame);
        out += buf;
        if (s.gpu_frames_per_launch > 1) {
            std::snprintf(buf, sizeof buf, ", %.1f frames a launch (shared with other streams)", s.gpu_frames_per_launch);
            out += buf;
        }
        if (!s.gpu_kernels.empty()) {
            out += "\nGPU kernels:";
            for (const std::string& k : s.gpu_kernels) out += " " + k + ";";
            out.pop_back();
        }
    }
    out += "\nbottleneck: " + s.bottleneck + "\n";
    if (!s.damage.empty()) out += "input damage: " + s.damage + "\n";
    return out;
}

}  // namespace vf
