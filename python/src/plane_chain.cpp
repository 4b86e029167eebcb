#include "plane_chain.hpp"

#include "common/error.hpp"
#include "config/filter_registry.hpp"

namespace vf {

std::vector<FilterPlan> plane_chain(const std::string& chain_text, int width, int height, const std::string& border,
                                    bool ffmpeg_defaults) {
    FrameGeometry g;
    g.width = width;
    g.height = height;
    g.log2_chroma_w = g.log2_chroma_h = 0;
    std::vector<FilterPlan> chain = build_chain(chain_text, ffmpeg_defaults ? FilterDefaults::Ffmpeg : FilterDefaults::Vfilter, g);
    if (border.empty()) return chain;
    for (Border b : {Border::Mirror, Border::Replicate, Border::Zero})
        if (border == border_name(b)) {
            for (FilterPlan& p : chain) p.ops[0].border = b;
            return chain;
        }
    throw Error(ErrorCategory::Usage, "border '" + border + "': use mirror, replicate or zero");
}

}  // namespace vf
