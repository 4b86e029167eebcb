// What the DecoderBalance tests share: streams placed on GPU 0 one after another.
#pragma once

#include <string>

#include "app/serve/decoder_balance.hpp"

namespace vf {

// Places `streams` streams named prefix0.. on GPU 0 and returns how many NVDEC took.
inline int on_nvdec(DecoderBalance& b, int streams, const std::string& prefix = "s", double feeder_cores = kNvdecFeederCores) {
    int n = 0;
    for (int i = 0; i < streams; ++i) n += b.place(prefix + std::to_string(i), 0, 1, feeder_cores).nvdec;
    return n;
}

}  // namespace vf
