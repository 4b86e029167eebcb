// The one table of filters: name, help, options (type, default, range, help) and the function
// that turns checked options into a FilterPlan. --list-filters and docs/filters.md come from it.
// Filter strings are compiled against it once (config/chain_spec.hpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/chain_spec.hpp"
#include "config/filter_spec.hpp"
#include "config/kernel_file.hpp"
#include "config/option_value.hpp"
#include "kernels/plan.hpp"

namespace vf {

// The values one filter instance is planned with: its defaults and the options given, typed.
// They point into the table and the compiled chain, which outlive the planning.
class OptionValues {
public:
    FrameGeometry geometry;    // unknown until the input is open
    KernelFiles kernel_files;  // where file= may read (a client's chain: only the operator's folder)
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    const OptionValue* find(const std::string& name) const;
    const std::string& text(const std::string& name) const;       // Choice, Text
    double number(const std::string& name) const;                 // Number, Integer, Planes
    int integer(const std::string& name) const { return static_cast<int>(number(name)); }
    const NumberExpr& expression(const std::string& name) const;  // Expression
    void set(const std::string& name, const OptionValue* v) { values_[name] = v; }

private:
    std::map<std::string, const OptionValue*> values_;
};

struct FilterDef {
    FilterDef(std::string name_, std::string help_, std::vector<OptionDef> options_,
              std::function<FilterPlan(const OptionValues&)> build_)
        : name(std::move(name_)), help(std::move(help_)), options(std::move(options_)), build(std::move(build_)) {}
    std::string name;
    std::string help;
    std::vector<OptionDef> options;
    std::function<FilterPlan(const OptionValues&)> build;
    // The options values given by position fill, in order (FFmpeg's order for FFmpeg's filters;
    // per-plane names as 0m, 1m, ...).
    std::vector<std::string> positions;
    // Where vfilter's default differs from FFmpeg's: FFmpeg's, for --compat ffmpeg.
    std::vector<std::pair<std::string, std::string>> ffmpeg_defaults;
    // FFmpeg's short names of options (boxblur's lr for luma_radius): {short, option}.
    std::vector<std::pair<std::string, std::string>> aliases;
    // The defaults above read as their types once, when the table is made.
    std::vector<std::pair<std::string, OptionValue>> typed_defaults, typed_ffmpeg_defaults;
};

const std::vector<FilterDef>& filter_table();
const FilterDef* find_filter(const std::string& name);

// Human-readable list of filters and options, for --list-filters.
std::string describe_filters();

}  // namespace vf
