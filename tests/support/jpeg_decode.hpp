// Decodes a JPEG (as vfilter's previews send it) with FFmpeg's MJPEG decoder, for tests.
#pragma once

#include <string>

#include "media/av_helpers.hpp"

namespace vf::test {

// The picture, or null when `jpeg` does not decode.
AvFramePtr decode_jpeg(const std::string& jpeg);

}  // namespace vf::test
