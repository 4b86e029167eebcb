// The one table of filters: name, help, options (type, default, range, help) and the function
// that turns checked options into a FilterPlan. --list-filters and docs/filters.md come from it.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "config/filter_spec.hpp"
#include "config/kernel_file.hpp"
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

// The frames a chain will filter, for options that depend on them (boxblur's radius expressions
// of w, h, cw, ch). Unknown (width 0) until the input is open: such options are then only
// checked for their syntax, and the chain is built again once the input is known.
struct FrameGeometry {
    int width = 0, height = 0;
    int log2_chroma_w = 1, log2_chroma_h = 1;  // 4:2:0
    bool known() const { return width > 0 && height > 0; }
};

// Checked option values of one filter instance.
class OptionValues {
public:
    FrameGeometry geometry;  // unknown until the input is open
    KernelFiles kernel_files;  // where file= may read (a client's chain: only the operator's folder)
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    const std::string& text(const std::string& name) const;
    double number(const std::string& name) const;
    int integer(const std::string& name) const;
    void set(const std::string& name, const std::string& v) { values_[name] = v; }

private:
    std::map<std::string, std::string> values_;
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
};

// Whose defaults a filter string gets: vfilter's (a bare sobel edges luma and greys the chroma)
// or FFmpeg's (--compat ffmpeg: the same string gives the ffmpeg command's output).
enum class FilterDefaults { Vfilter, Ffmpeg };

const std::vector<FilterDef>& filter_table();
const FilterDef* find_filter(const std::string& name);

// Checks one spec against the table (unknown filter or option, type, range) and builds its plan.
FilterPlan build_plan(const FilterSpec& spec, FilterDefaults defaults = FilterDefaults::Vfilter,
                      const FrameGeometry& geometry = {}, const KernelFiles& kernel_files = {});
std::vector<FilterPlan> build_chain(const std::string& chain_text, FilterDefaults defaults = FilterDefaults::Vfilter,
                                    const FrameGeometry& geometry = {}, const KernelFiles& kernel_files = {});

// Human-readable list of filters and options, for --list-filters.
std::string describe_filters();

}  // namespace vf
