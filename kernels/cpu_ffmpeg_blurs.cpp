#include "kernels/cpu_ffmpeg_blurs.hpp"

#include <algorithm>

#include "kernels/border.hpp"
#include "kernels/ffmpeg_arith.hpp"

namespace vf {
namespace {

// Passes of FFmpeg's box along one line of n values, in place. Each pass sums its windows by
// prefix sums over the line extended by the border rule; `ext` and `prefix` are scratch.
void box_line(int32_t* line, int n, const BoxPassesOp& box, Border border, int mask, std::vector<int32_t>& ext,
              std::vector<int64_t>& prefix) {
    const int r = box.radius, inverse = ffmpeg_box_inverse(r);
    ext.resize(static_cast<size_t>(n + 2 * r));
    prefix.resize(ext.size() + 1);
    for (int p = 0; p < box.power; ++p) {
        for (int i = -r; i < n + r; ++i) {
            const int at = border_index(i, n, border);
            ext[static_cast<size_t>(i + r)] = at < 0 ? 0 : line[at];
        }
        prefix[0] = 0;
        for (size_t i = 0; i < ext.size(); ++i) prefix[i + 1] = prefix[i] + ext[i];
        for (int x = 0; x < n; ++x)
            line[x] = ffmpeg_box_mean(prefix[static_cast<size_t>(x + 2 * r + 1)] - prefix[static_cast<size_t>(x)], inverse, mask);
    }
}

// About four tasks a worker, each a run of whole lines.
int task_count(int lines, const ThreadPool& pool) { return std::max(1, std::min(lines, pool.size() * 4)); }

}  // namespace

void box_passes_cpu(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, ThreadPool& pool,
                    std::vector<int32_t>& between) {
    const int w = src.width, h = src.height, mask = ffmpeg_sample_bits_mask(src.bytes_per_sample);
    if (w <= 0 || h <= 0) return;
    between.resize(static_cast<size_t>(w) * h);
    const int row_tasks = task_count(h, pool);
    pool.parallel_for(row_tasks, [&](int t, int) {
        std::vector<int32_t> ext;
        std::vector<int64_t> prefix;
        for (int y = h * t / row_tasks; y < h * (t + 1) / row_tasks; ++y) {
            int32_t* line = between.data() + static_cast<size_t>(y) * w;
            for (int x = 0; x < w; ++x) line[x] = src.read(x, y);
            box_line(line, w, op.box, op.border, mask, ext, prefix);
        }
    });
    const int column_tasks = task_count(w, pool);
    pool.parallel_for(column_tasks, [&](int t, int) {
        std::vector<int32_t> ext, column(static_cast<size_t>(h));
        std::vector<int64_t> prefix;
        for (int x = w * t / column_tasks; x < w * (t + 1) / column_tasks; ++x) {
            for (int y = 0; y < h; ++y) column[static_cast<size_t>(y)] = between[static_cast<size_t>(y) * w + x];
            box_line(column.data(), h, op.box, op.border, mask, ext, prefix);
            for (int y = 0; y < h; ++y) dst.write(x, y, column[static_cast<size_t>(y)]);
        }
    });
}

void unsharp_fixed_band(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1,
                        std::vector<uint32_t>& sums) {
    const UnsharpFixedOp& u = op.unsharp;
    const int w = src.width, sx = u.steps_x, sy = u.steps_y, rows = y1 - y0 + 2 * sy;
    uint32_t tx[32], ty[32];
    for (int i = 0; i <= 2 * sx; ++i) tx[i] = ffmpeg_binomial_tap(sx, i);
    for (int j = 0; j <= 2 * sy; ++j) ty[j] = ffmpeg_binomial_tap(sy, j);
    // Rows y0 - sy .. y1 + sy - 1 summed across (uint32_t wraps as FFmpeg's sums do), then a row
    // of the padded input and the column sums.
    sums.assign(static_cast<size_t>(rows + 2) * w + 2 * sx, 0);
    uint32_t* across = sums.data();
    uint32_t* padded = across + static_cast<size_t>(rows) * w;
    uint32_t* down = padded + w + 2 * sx;
    for (int j = 0; j < rows; ++j) {
        const int y = border_index(y0 - sy + j, src.height, op.border);
        uint32_t* out = across + static_cast<size_t>(j) * w;
        if (y < 0) continue;  // a zero border's row: sums of zeros
        for (int i = -sx; i < w + sx; ++i) {
            const int x = border_index(i, w, op.border);
            padded[i + sx] = x < 0 ? 0u : static_cast<uint32_t>(src.read(x, y));
        }
        for (int i = 0; i <= 2 * sx; ++i)
            for (int x = 0; x < w; ++x) out[x] += tx[i] * padded[x + i];
    }
    const int scalebits = 2 * (sx + sy);
    for (int y = y0; y < y1; ++y) {
        std::fill(down, down + w, 0u);
        for (int j = 0; j <= 2 * sy; ++j) {
            const uint32_t* in = across + static_cast<size_t>(y - y0 + j) * w;
            for (int x = 0; x < w; ++x) down[x] += ty[j] * in[x];
        }
        for (int x = 0; x < w; ++x)
            dst.write(x, y, ffmpeg_unsharp_finish(src.read(x, y), ffmpeg_unsharp_blur(down[x], scalebits), u.amount,
                                                  src.bytes_per_sample));
    }
}

}  // namespace vf
