#include "config/chain_spec.hpp"

#include <cmath>

#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "config/filter_spec.hpp"

namespace vf {
namespace {

[[noreturn]] void refuse_chain(const std::string& msg) { fail(ErrorCategory::Usage, msg); }

// What to use instead of one of FFmpeg's filters that vfilter lacks, where something else does it.
std::string instead_of(const std::string& name) {
    static const std::vector<std::pair<std::vector<std::string>, std::string>> kInstead = {
        {{"split", "overlay", "blend", "hstack", "vstack", "xstack", "concat", "interleave", "merge"},
         "vfilter filters one input through one linear chain to one output"},
        {{"scale", "zscale", "scale_cuda", "scale_npp"}, "scale with vfilter ffmpeg's -s WxH (after the filters)"},
        {{"fps", "framerate"}, "set the output rate with vfilter ffmpeg's -r"},
        {{"trim", "select"}, "cut with vfilter ffmpeg's -ss, -t, -to or -frames:v"},
        {{"format", "hwupload", "hwdownload", "hwupload_cuda"}, "vfilter keeps the input's format and uploads frames itself"},
    };
    for (const auto& [names, what] : kInstead)
        for (const std::string& n : names)
            if (n == name) return "; " + what;
    return "";
}

const FilterDef& filter_named(const std::string& name) {
    // FFmpeg's filters that pass frames through unchanged.
    if (name == "null" || name == "copy") return *find_filter("identity");
    if (const FilterDef* def = find_filter(name)) return *def;
    if (const std::string instead = instead_of(name); !instead.empty())
        refuse_chain("filter '" + name + "' is not one of vfilter's" + instead);
    std::string names;
    for (const auto& f : filter_table()) names += (names.empty() ? "" : ", ") + f.name;
    refuse_chain("unknown filter '" + name + "'; available: " + names);
}

// The option `key` names (an alias resolved, a per-plane name such as 0m matched); a usage error
// listing the filter's options when there is none.
const OptionDef& option_named(const FilterDef& def, const std::string& key) {
    const OptionDef* d = nullptr;
    for (const auto& od : def.options) {
        if (od.name == key) d = &od;
        else if (od.per_plane && key.size() == od.name.size() + 1 && key[0] >= '0' && key[0] <= '3' && key.substr(1) == od.name)
            d = &od;
    }
    if (d) return *d;
    std::string names;
    for (const auto& od : def.options) names += (names.empty() ? "" : ", ") + od.name;
    refuse_chain("filter '" + def.name + "': unknown option '" + key + "'" + (names.empty() ? "; it takes no options" : "; options: " + names));
}

// The names FFmpeg's enable= expressions may use, in the order timeline_condition gives their values.
const std::vector<std::string>& timeline_names() {
    static const std::vector<std::string> names = {"t", "n", "pos", "w", "h"};
    return names;
}

// FFmpeg's options of every filter (libavfilter/avfilter.c): enable= is taken (timeline editing);
// the thread options are refused, as vfilter sets threads for the whole run. False for the others.
bool generic_option(const std::string& filter, const std::string& key, const std::string& text, CompiledFilter* compiled) {
    if (key == "enable") {
        NumberExpr expr;
        std::string why;
        if (!NumberExpr::parse(text, timeline_names(), &expr, &why))
            refuse_chain("filter '" + filter + "': enable='" + text + "' " + why + " (it may use t, n, pos, w, h, e.g. 'between(t,10,20)')");
        compiled->enable = std::move(expr);
        return true;
    }
    if (key == "threads" || key == "thread_type")
        refuse_chain("filter '" + filter + "': " + key + "= is not taken; vfilter sets its filter threads for the whole run "
                     "(--threads; vfilter ffmpeg: -filter_threads)");
    if (key == "extra_hw_frames")
        refuse_chain("filter '" + filter + "': extra_hw_frames= is not taken; vfilter keeps its GPU frames itself");
    return false;
}

// enable='expr' as the plan's condition: FFmpeg applies the filter where |expr| >= 0.5.
std::shared_ptr<const TimelineCondition> timeline_condition(const NumberExpr& expr) {
    return std::make_shared<const TimelineCondition>([expr](const FrameMoment& m) {
        return std::fabs(expr.value_of({m.t, m.n, m.pos, m.w, m.h})) >= 0.5;
    });
}

CompiledFilter compile_filter(const FilterSpec& spec) {
    CompiledFilter compiled;
    const FilterDef& def = filter_named(spec.name);
    compiled.def = &def;
    size_t position = 0;
    for (const auto& [written, text] : spec.options) {
        std::string key = written;
        if (key.empty()) {  // by position
            if (position >= def.positions.size()) {
                std::string order;
                for (const auto& n : def.positions) order += (order.empty() ? "" : ", ") + n;
                refuse_chain("filter '" + spec.name + "': value '" + text + "' is number " + std::to_string(position + 1) +
                      " by position; " + spec.name +
                      (order.empty() ? " takes none by position" : " takes " + std::to_string(def.positions.size()) + " (" + order + ")"));
            }
            key = def.positions[position++];
        }
        for (const auto& [alias, name] : def.aliases)
            if (key == alias) key = name;
        if (generic_option(spec.name, key, text, &compiled)) continue;
        compiled.names_planes |= key == "planes";
        compiled.names_rest |= key == "rest";
        const OptionDef& d = option_named(def, key);
        compiled.options.push_back({key, read_option_value(spec.name, key, d, text)});
    }
    return compiled;
}

// RGB has no luma and no chroma: its three planes are colours alike. Every one of them is filtered
// where the user named no planes (vfilter's bare sobel edges only the luma of YUV; FFmpeg's
// defaults, planes=15, take every plane already), and a chroma option not given takes luma's
// (unsharp's chroma amount is 0 by default, which would leave B and R as they are; boxblur's
// chroma follows its luma in FFmpeg too).
void plan_for_rgb(const CompiledFilter& f, OptionValues& values) {
    static const OptionValue all_planes = 15.0, copy = std::string("copy");
    if (!f.names_planes && values.has("planes")) {
        values.set("planes", &all_planes);
        if (values.has("rest")) values.set("rest", &copy);
    }
    const std::string chroma = "chroma_";
    for (const OptionDef& d : f.def->options) {
        if (d.name.compare(0, chroma.size(), chroma) != 0) continue;
        bool given = false;
        for (const CompiledOption& o : f.options) given |= o.name == d.name;
        if (const OptionValue* luma = values.find("luma_" + d.name.substr(chroma.size())); luma && !given) values.set(d.name, luma);
    }
}

FilterPlan plan_filter(const CompiledFilter& f, FilterDefaults defaults, const FrameGeometry& geometry,
                       const KernelFiles& kernel_files) {
    static const OptionValue copy = std::string("copy");
    OptionValues values;
    values.geometry = geometry;
    values.kernel_files = kernel_files;
    for (const auto& [name, value] : f.def->typed_defaults) values.set(name, &value);
    if (defaults == FilterDefaults::Ffmpeg)
        for (const auto& [name, value] : f.def->typed_ffmpeg_defaults) values.set(name, &value);
    for (const CompiledOption& o : f.options) values.set(o.name, &o.value);
    // FFmpeg's meaning of planes: the planes left out are copied unchanged.
    if (f.names_planes && !f.names_rest && values.has("rest")) values.set("rest", &copy);
    if (geometry.rgb) plan_for_rgb(f, values);
    return f.def->build(values);
}

}  // namespace

std::shared_ptr<const ChainSpec> compile_chain(const std::string& text) {
    FilterChainText chain = parse_filter_chain(text);
    std::vector<CompiledFilter> filters;
    for (const FilterSpec& spec : chain.filters) filters.push_back(compile_filter(spec));
    return std::make_shared<const ChainSpec>(text, std::move(filters), chain.input_label, chain.output_label);
}

const std::shared_ptr<const ChainSpec>& identity_chain() {
    static const std::shared_ptr<const ChainSpec> identity = [] {
        CompiledFilter f;
        f.def = find_filter("identity");
        return std::make_shared<const ChainSpec>("identity", std::vector<CompiledFilter>{f});
    }();
    return identity;
}

std::vector<FilterPlan> plan_chain(const ChainSpec& spec, FilterDefaults defaults, const FrameGeometry& geometry,
                                   const KernelFiles& kernel_files) {
    std::vector<FilterPlan> plans;
    plans.reserve(spec.filters().size());
    for (const CompiledFilter& f : spec.filters()) {
        plans.push_back(plan_filter(f, defaults, geometry, kernel_files));
        if (f.enable) plans.back().enable = timeline_condition(*f.enable);
    }
    return plans;
}

std::vector<FilterPlan> build_chain(const std::string& chain_text, FilterDefaults defaults, const FrameGeometry& geometry,
                                    const KernelFiles& kernel_files) {
    return plan_chain(*compile_chain(chain_text), defaults, geometry, kernel_files);
}

}  // namespace vf
