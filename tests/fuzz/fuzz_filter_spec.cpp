// libFuzzer target: the filter-chain parser and plan builder (config/), fed any text: values by
// position, FFmpeg expressions (libavutil's av_expr), both sets of defaults, before the input is
// known and for two frame sizes (boxblur's radii are expressions of them).
// A usage error (vf::Error) is the expected answer to bad input; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "config/filter_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const vf::FrameGeometry frames[] = {{}, {333, 197, 1, 1}, {1, 1, 0, 0}};
    for (vf::FilterDefaults d : {vf::FilterDefaults::Vfilter, vf::FilterDefaults::Ffmpeg})
        for (const vf::FrameGeometry& g : frames) {
            try {
                (void)vf::build_chain(text, d, g);
            } catch (const vf::Error&) {
            }
        }
    return 0;
}
