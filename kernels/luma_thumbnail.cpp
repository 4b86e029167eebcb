#include "kernels/luma_thumbnail.hpp"

#include "common/error.hpp"

namespace vf {

ThumbnailShape thumbnail_shape(int width, int height) {
    if (width < 1 || height < 1) fail(ErrorCategory::Internal, "thumbnail_shape: a plane must be at least 1x1");
    ThumbnailShape s;
    s.factor = (width + kThumbnailMaxWidth - 1) / kThumbnailMaxWidth;
    s.width = (width + s.factor - 1) / s.factor;
    s.height = (height + s.factor - 1) / s.factor;
    return s;
}

namespace {

// One row of cells: sums every sample of the plane's rows [y0, y1) into its cell, then rounds.
template <typename T>
void thumbnail_row(const PlaneView& luma, const ThumbnailShape& s, int y0, int y1, int to_8bit, uint32_t* sums,
                   uint8_t* out) {
    for (int x = 0; x < s.width; ++x) sums[x] = 0;
    const std::ptrdiff_t step = luma.step;
    for (int y = y0; y < y1; ++y) {
        const T* row = reinterpret_cast<const T*>(luma.data + y * luma.pitch);
        int x = 0;
        for (int cell = 0; cell < s.width; ++cell) {
            const int end = x + s.factor < luma.width ? x + s.factor : luma.width;
            uint32_t sum = 0;
            for (; x < end; ++x) sum += static_cast<uint32_t>(row[x * step] >> luma.shift) >> to_8bit;
            sums[cell] += sum;
        }
    }
    const uint32_t rows = static_cast<uint32_t>(y1 - y0);
    for (int x = 0; x < s.width; ++x) {
        const int x1 = (x + 1) * s.factor < luma.width ? (x + 1) * s.factor : luma.width;
        const uint32_t count = rows * static_cast<uint32_t>(x1 - x * s.factor);
        out[x] = static_cast<uint8_t>((sums[x] + count / 2) / count);
    }
}

}  // namespace

void make_luma_thumbnail(const PlaneView& luma, uint8_t* out) {
    const ThumbnailShape s = thumbnail_shape(luma.width, luma.height);
    const int to_8bit = luma.depth > 8 ? luma.depth - 8 : 0;
    std::vector<uint32_t> sums(static_cast<size_t>(s.width));
    for (int ty = 0; ty < s.height; ++ty) {
        const int y0 = ty * s.factor, y1 = y0 + s.factor < luma.height ? y0 + s.factor : luma.height;
        uint8_t* row_out = out + static_cast<size_t>(ty) * s.width;
        if (luma.bytes_per_sample == 1) thumbnail_row<uint8_t>(luma, s, y0, y1, to_8bit, sums.data(), row_out);
        else thumbnail_row<uint16_t>(luma, s, y0, y1, to_8bit, sums.data(), row_out);
    }
}

LumaThumbnail make_luma_thumbnail(const PlaneView& luma) {
    const ThumbnailShape s = thumbnail_shape(luma.width, luma.height);
    LumaThumbnail t;
    t.width = s.width;
    t.height = s.height;
    t.samples.resize(static_cast<size_t>(s.width) * s.height);
    make_luma_thumbnail(luma, t.samples.data());
    return t;
}

}  // namespace vf
