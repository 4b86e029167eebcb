// The one table of filters: name, help, options (type, default, range, help) and the function
// that turns checked options into a FilterPlan. --list-filters and docs/filters.md come from it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/filter_spec.hpp"
#include "kernels/plan.hpp"

namespace vf {

enum class OptionType { Number, Integer, Choice, Text };

struct OptionDef {
    std::string name;
    OptionType type;
    std::string default_value;  // "" = not set
    double min = 0, max = 0;    // Number, Integer
    std::vector<std::string> choices;  // Choice
    std::string help;
    bool per_plane = false;     // also accepted as 0name, 1name, 2name for one channel
};

// Checked option values of one filter instance.
class OptionValues {
public:
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    const std::string& text(const std::string& name) const;
    double number(const std::string& name) const;
    int integer(const std::string& name) const;
    void set(const std::string& name, const std::string& v) { values_[name] = v; }

private:
    std::map<std::string, std::string> values_;
};

struct FilterDef {
    std::string name;
    std::string help;
    std::vector<OptionDef> options;
    std::function<FilterPlan(const OptionValues&)> build;
};

const std::vector<FilterDef>& filter_table();
const FilterDef* find_filter(const std::string& name);

// Checks one spec against the table (unknown filter or option, type, range) and builds its plan.
FilterPlan build_plan(const FilterSpec& spec);
std::vector<FilterPlan> build_chain(const std::string& chain_text);

// Human-readable list of filters and options, for --list-filters.
std::string describe_filters();

}  // namespace vf
