#include "plane_chain.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "config/filter_registry.hpp"

namespace vf {

bool border_named(const std::string& name, Border* border) {
    if (name.empty()) return false;
    for (Border b : {Border::Mirror, Border::Replicate, Border::Zero})
        if (name == border_name(b)) {
            *border = b;
            return true;
        }
    throw Error(ErrorCategory::Usage, "border '" + name + "': use mirror, replicate, zero or ffmpeg");
}

namespace {

bool takes_ffmpeg_border(const FilterDef& def) {
    for (const OptionDef& o : def.options)
        if (o.name == "border") return std::count(o.choices.begin(), o.choices.end(), kFfmpegBorderName) > 0;
    return false;
}

// The filters of the table that take border=ffmpeg, for the refusal.
std::string ffmpeg_border_filters() {
    std::string names;
    for (const FilterDef& def : filter_table())
        if (takes_ffmpeg_border(def)) names += (names.empty() ? "" : ", ") + def.name;
    return names;
}

}  // namespace

std::shared_ptr<const ChainSpec> with_ffmpeg_border(const ChainSpec& spec) {
    std::vector<CompiledFilter> filters = spec.filters();
    for (CompiledFilter& f : filters) {
        if (!takes_ffmpeg_border(*f.def))
            throw Error(ErrorCategory::Usage, "border 'ffmpeg': " + f.def->name + " has no FFmpeg edge of its own; it is for " +
                                                  ffmpeg_border_filters() + " (use mirror, replicate or zero)");
        f.options.erase(std::remove_if(f.options.begin(), f.options.end(), [](const CompiledOption& o) { return o.name == "border"; }),
                        f.options.end());
        f.options.push_back(CompiledOption{"border", std::string(kFfmpegBorderName)});
    }
    return std::make_shared<const ChainSpec>(spec.text(), std::move(filters), spec.input_label(), spec.output_label());
}

std::vector<FilterPlan> plane_chain(const ChainSpec& spec, int width, int height, bool forced, Border border,
                                    bool ffmpeg_defaults) {
    FrameGeometry g;
    g.width = width;
    g.height = height;
    g.log2_chroma_w = g.log2_chroma_h = 0;
    std::vector<FilterPlan> chain = plan_chain(spec, ffmpeg_defaults ? FilterDefaults::Ffmpeg : FilterDefaults::Vfilter, g);
    if (forced)
        for (FilterPlan& p : chain) p.ops[0].border = border;
    return chain;
}

}  // namespace vf
