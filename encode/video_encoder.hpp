// The video encoder of an output: codec aliases, NVENC when filtering on the GPU and the GPU has
// it (else libx264), constant quality (crf, NVENC's cq, qscale) or a bitrate, presets,
// low-latency tuning and, for live inputs, a keyframe every 2 s.
#pragma once

#include <string>

#include "encode/output_options.hpp"
#include "media/av_helpers.hpp"
#include "media/frame.hpp"

namespace vf {

// Resolves codec aliases (h264, hevc, ...; auto means libx264 here) to an encoder; throws Usage
// for unknown names.
const AVCodec* find_video_encoder(const std::string& name);

// Opens the encoder options.codec names for frames described by `video`. global_header: the
// container (or the segment muxer, or a network protocol) wants the codec headers out of band.
// Throws Usage for a bad preset or bitrate, Device for an NVENC that cannot open, Output otherwise.
AvCodecContextPtr open_video_encoder(const OutputOptions& options, const VideoInfo& video, bool global_header);

}  // namespace vf
