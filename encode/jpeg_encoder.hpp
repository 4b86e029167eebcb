// Still pictures of frames for previews (vfilter serve's page): a frame scaled down to a width
// (height from its display aspect) and written as a JPEG by FFmpeg's MJPEG encoder. Hardware
// frames (NVDEC) are downloaded first. Any format the pipeline carries goes in; limited-range
// video comes out full-range, as JPEG viewers expect.
#pragma once

#include <string>

#include "media/av_helpers.hpp"

namespace vf {

struct JpegSize {
    int width = 0, height = 0;
};

// The picture's size for a frame of width x height (sample aspect `sar`, 0/1 when unknown)
// asked at `width`: no wider than the frame, both sides even and at least 16.
JpegSize jpeg_size(int width, int height, AVRational sar, int asked_width);

// quality: FFmpeg's -q:v for MJPEG, 2 (best) to 31. Throws Error(Internal) when FFmpeg fails.
std::string encode_jpeg(const AVFrame& frame, int width, int quality = 5);

}  // namespace vf
