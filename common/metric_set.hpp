// Prometheus text exposition built from several sources: samples are grouped by family, so every
// family's HELP and TYPE lines come once, followed by its samples from every stream, as the
// format requires.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vf {

class MetricSet {
public:
    // One sample; `labels` is the inside of {...} without braces ("" for none).
    void add(const std::string& name, const char* type, const char* help, double value, const std::string& labels = "");
    std::string text() const;

private:
    struct Family {
        std::string name, type, help;
        std::vector<std::pair<std::string, double>> samples;
    };
    std::vector<Family> families_;
};

// `key="value"` with the value escaped as the exposition format wants (\\, \", \n).
std::string metric_label(const std::string& key, const std::string& value);
// Two label lists joined with a comma, either may be empty.
std::string join_labels(const std::string& a, const std::string& b);

}  // namespace vf
