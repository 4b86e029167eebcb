#include "kernels/reference_ffmpeg.hpp"

#include <vector>

#include "kernels/ffmpeg_arith.hpp"

namespace vf {
namespace {

// One box pass along a line of n values: each output is FFmpeg's mean of its window, the window
// read through the border rule (Reflect: FFmpeg's own edge).
std::vector<int> box_pass(const std::vector<int>& line, int radius, Border border, int mask) {
    const int n = static_cast<int>(line.size());
    const int inverse = ffmpeg_box_inverse(radius);
    std::vector<int> out(line.size());
    for (int x = 0; x < n; ++x) {
        int64_t sum = 0;
        for (int i = x - radius; i <= x + radius; ++i) {
            const int at = border_index(i, n, border);
            sum += at < 0 ? 0 : line[static_cast<size_t>(at)];
        }
        out[static_cast<size_t>(x)] = ffmpeg_box_mean(sum, inverse, mask);
    }
    return out;
}

std::vector<int> box_passes(std::vector<int> line, const BoxPassesOp& box, Border border, int mask) {
    for (int p = 0; p < box.power; ++p) line = box_pass(line, box.radius, border, mask);
    return line;
}

}  // namespace

void reference_box_passes(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const int w = src.width, h = src.height, mask = ffmpeg_sample_bits_mask(src.bytes_per_sample);
    // Every row's passes, then every column's: FFmpeg's hblur, then its vblur.
    std::vector<std::vector<int>> rows(static_cast<size_t>(h));
    for (int y = 0; y < h; ++y) {
        std::vector<int> line(static_cast<size_t>(w));
        for (int x = 0; x < w; ++x) line[static_cast<size_t>(x)] = src.read(x, y);
        rows[static_cast<size_t>(y)] = box_passes(line, op.box, op.border, mask);
    }
    for (int x = 0; x < w; ++x) {
        std::vector<int> column(static_cast<size_t>(h));
        for (int y = 0; y < h; ++y) column[static_cast<size_t>(y)] = rows[static_cast<size_t>(y)][static_cast<size_t>(x)];
        column = box_passes(column, op.box, op.border, mask);
        for (int y = y0; y < y1; ++y) dst.write(x, y, column[static_cast<size_t>(y)]);
    }
}

void reference_unsharp_fixed(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1) {
    const UnsharpFixedOp& u = op.unsharp;
    const int scalebits = 2 * (u.steps_x + u.steps_y);
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < src.width; ++x) {
            uint64_t sum = 0;
            for (int j = 0; j <= 2 * u.steps_y; ++j)
                for (int i = 0; i <= 2 * u.steps_x; ++i) {
                    const int sx = border_index(x + i - u.steps_x, src.width, op.border);
                    const int sy = border_index(y + j - u.steps_y, src.height, op.border);
                    const uint64_t v = sx < 0 || sy < 0 ? 0 : static_cast<uint64_t>(src.read(sx, sy));
                    sum += uint64_t{ffmpeg_binomial_tap(u.steps_y, j)} * ffmpeg_binomial_tap(u.steps_x, i) * v;
                }
            const int32_t blur = ffmpeg_unsharp_blur(static_cast<uint32_t>(sum), scalebits);
            dst.write(x, y, ffmpeg_unsharp_finish(src.read(x, y), blur, u.amount, src.bytes_per_sample));
        }
}

}  // namespace vf
