#include "plane_chain.hpp"

#include "common/error.hpp"

namespace vf {

bool border_named(const std::string& name, Border* border) {
    if (name.empty()) return false;
    for (Border b : {Border::Mirror, Border::Replicate, Border::Zero})
        if (name == border_name(b)) {
            *border = b;
            return true;
        }
    throw Error(ErrorCategory::Usage, "border '" + name + "': use mirror, replicate or zero");
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
