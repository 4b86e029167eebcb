// The luma thumbnail: the reduced picture every per-stream picture measure (pipeline/watch/) is
// computed from. A box average of the luma plane by one whole factor, chosen so that the thumbnail
// is at most kThumbnailMaxWidth samples wide (1920x1080: factor 6, 320x180). Where the size is not
// a multiple of the factor, the last column and row of cells average only the samples they hold.
//
// Samples are taken to 8 bits first (value >> (depth - 8), the storage shift already undone), and
// each cell is rounded half up in integers: (sum + count / 2) / count. Integers, so that the CPU
// here and the GPU (kernels/cuda/luma_thumbnail.cu) give the same bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "common/plane.hpp"

namespace vf {

constexpr int kThumbnailMaxWidth = 320;

struct ThumbnailShape {
    int factor = 1;  // the side of a full cell, in samples of the plane
    int width = 0, height = 0;
};

// The factor and size for a plane of width x height (both at least 1).
ThumbnailShape thumbnail_shape(int width, int height);

// A thumbnail's samples, row after row, no padding.
struct LumaThumbnail {
    int width = 0, height = 0;
    std::vector<uint8_t> samples;

    uint8_t at(int x, int y) const { return samples[static_cast<size_t>(y) * width + x]; }
};

// Writes the thumbnail of `luma` (8-bit, or 9..16-bit in 16-bit words) into `out`, which holds
// thumbnail_shape(...).width * height bytes; every byte is written.
void make_luma_thumbnail(const PlaneView& luma, uint8_t* out);
LumaThumbnail make_luma_thumbnail(const PlaneView& luma);

}  // namespace vf
