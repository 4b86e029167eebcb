#include "common/metric_set.hpp"

#include <cstdio>

namespace vf {

void MetricSet::add(const std::string& name, const char* type, const char* help, double value, const std::string& labels) {
    for (Family& f : families_)
        if (f.name == name) {
            f.samples.emplace_back(labels, value);
            return;
        }
    families_.push_back(Family{name, type, help, {{labels, value}}});
}

std::string MetricSet::text() const {
    std::string out;
    for (const Family& f : families_) {
        out += "# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
        for (const auto& [labels, value] : f.samples) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " %.6g\n", value);
            out += f.name + (labels.empty() ? "" : "{" + labels + "}") + buf;
        }
    }
    return out;
}

std::string metric_label(const std::string& key, const std::string& value) {
    std::string v;
    for (char c : value) {
        if (c == '\\' || c == '"') v += '\\', v += c;
        else if (c == '\n') v += "\\n";
        else v += c;
    }
    return key + "=\"" + v + "\"";
}

std::string join_labels(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + "," + b;
}

}  // namespace vf
