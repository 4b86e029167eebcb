#include "idle_cores.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace vf {

IdleCoresMeter::IdleCoresMeter() : last_(read()) {}

std::optional<IdleCoresMeter::Ticks> IdleCoresMeter::read() {
    std::ifstream stat("/proc/stat");
    std::string line;
    if (!stat || !std::getline(stat, line) || line.rfind("cpu ", 0) != 0) return std::nullopt;
    // cpu  user nice system idle iowait irq softirq steal ...: ticks of every core together.
    std::istringstream fields(line.substr(4));
    Ticks t;
    uint64_t value = 0;
    for (int i = 0; fields >> value; ++i) {
        if (i == 3 || i == 4) t.idle += value;
        if (i < 8) t.total += value;  // guest time is counted in user time already
    }
    if (t.total == 0) return std::nullopt;
    return t;
}

std::optional<double> IdleCoresMeter::sample() {
    const std::optional<Ticks> now = read();
    if (!now || !last_ || now->total <= last_->total) {
        if (now) last_ = now;
        return std::nullopt;
    }
    const double cores = std::thread::hardware_concurrency() > 0 ? std::thread::hardware_concurrency() : 1;
    const double idle = static_cast<double>(now->idle - last_->idle) / static_cast<double>(now->total - last_->total);
    last_ = now;
    return idle * cores;
}

}  // namespace vf
