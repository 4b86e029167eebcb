// Where a new decoder may take over a stream without losing a frame: serve moves a running
// stream between NVDEC and the CPU (docs/serve.md, "Moving a stream between decoders") by
// draining the old decoder and starting the new one at such a packet.
#pragma once

extern "C" {
#include <libavcodec/packet.h>
#include <libavcodec/codec_par.h>
}

namespace vf {

// True when a decoder started at `packet` gives every frame from it on, and the frames before it
// need nothing after it: for H.264 and HEVC an IDR picture (not a recovery point or an HEVC CRA,
// after which a new decoder drops the leading pictures or those of a gradual refresh); for other
// codecs a key frame of a stream whose frames are not reordered (no B-frames).
bool starts_clean_decode(const AVPacket* packet, const AVCodecParameters* par);

}  // namespace vf
