// A filter chain compiled once, at whichever door it came in by (the command line, a serve config
// entry, an API request, the GStreamer element's property, Python's arguments): every filter found
// in the table, every option under its own name with a value of its own type (numbers as numbers,
// choices as the choice, radius expressions parsed), and the text it came from, for display. Plans
// are made from it for each frame geometry without reading text again; a new chain is compiled
// and swapped in whole, never edited.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/kernel_file.hpp"
#include "config/option_value.hpp"
#include "kernels/plan.hpp"

namespace vf {

struct FilterDef;

// Whose defaults a filter string gets: vfilter's (a bare sobel edges luma and greys the chroma)
// or FFmpeg's (--compat ffmpeg: the same string gives the ffmpeg command's output).
enum class FilterDefaults { Vfilter, Ffmpeg };

struct CompiledOption {
    std::string name;  // the table's name (an alias resolved), with its plane for one plane's (0m)
    OptionValue value;
};

struct CompiledFilter {
    const FilterDef* def = nullptr;       // in filter_table(), which lives as long as the process
    std::vector<CompiledOption> options;  // as given, in order; defaults are added when planned
    bool names_planes = false, names_rest = false;
    // FFmpeg's timeline editing (enable=): an expression of t, n, pos, w, h; the filter applies
    // to the frames where it is not 0 (FFmpeg's |value| >= 0.5). Unset: every frame.
    std::optional<NumberExpr> enable;
};

class ChainSpec {
public:
    ChainSpec(std::string text, std::vector<CompiledFilter> filters, std::string input_label = "", std::string output_label = "")
        : text_(std::move(text)), filters_(std::move(filters)), input_label_(std::move(input_label)),
          output_label_(std::move(output_label)) {}
    const std::string& text() const { return text_; }
    const std::vector<CompiledFilter>& filters() const { return filters_; }
    // FFmpeg's labels around the chain ([in]sobel[out]): "" where none was written.
    const std::string& input_label() const { return input_label_; }
    const std::string& output_label() const { return output_label_; }

private:
    std::string text_;
    std::vector<CompiledFilter> filters_;
    std::string input_label_, output_label_;
};

// Parses `text` (once) and checks every filter and option against the table: unknown names,
// types, ranges and choices. Throws Error(Usage) in one line naming the filter and the option.
std::shared_ptr<const ChainSpec> compile_chain(const std::string& text);

// The chain that changes nothing, made without parsing.
const std::shared_ptr<const ChainSpec>& identity_chain();

// The plans of `spec` for frames of `geometry` (unknown: what can be checked before the input is
// open; options of the frame's size are planned for a stand-in), with `defaults`' defaults; file=
// kernels are read within `kernel_files`. Throws Error(Usage) naming the filter and the option.
std::vector<FilterPlan> plan_chain(const ChainSpec& spec, FilterDefaults defaults = FilterDefaults::Vfilter,
                                   const FrameGeometry& geometry = {}, const KernelFiles& kernel_files = {});

// compile_chain then plan_chain: for tests, benchmarks and tools that hold a string once.
std::vector<FilterPlan> build_chain(const std::string& chain_text, FilterDefaults defaults = FilterDefaults::Vfilter,
                                    const FrameGeometry& geometry = {}, const KernelFiles& kernel_files = {});

// A compiled chain as options carry it: shared and never changed; identity unless set. Made from
// text it compiles that text, once (the door of code that holds a string, such as a test).
class FilterChain {
public:
    FilterChain() : spec_(identity_chain()) {}
    FilterChain(std::shared_ptr<const ChainSpec> spec) : spec_(spec ? std::move(spec) : identity_chain()) {}
    FilterChain(const std::string& text) : spec_(compile_chain(text)) {}
    FilterChain(const char* text) : spec_(compile_chain(text)) {}
    const ChainSpec& spec() const { return *spec_; }
    const std::shared_ptr<const ChainSpec>& shared() const { return spec_; }
    const std::string& text() const { return spec_->text(); }

private:
    std::shared_ptr<const ChainSpec> spec_;
};

}  // namespace vf
