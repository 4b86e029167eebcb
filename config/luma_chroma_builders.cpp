// FFmpeg's unsharp and boxblur: options per luma and chroma, planned either as one exact
// convolution (arithmetic=exact, vfilter's default) or as FFmpeg 5.1's own integer arithmetic
// (arithmetic=ffmpeg, the default under --compat ffmpeg: its bytes).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/filter_builders.hpp"
#include "config/number_expr.hpp"

namespace vf {
namespace {

[[noreturn]] void refuse(const std::string& msg) { fail(ErrorCategory::Usage, msg); }

}  // namespace

OptionDef arithmetic_option(const std::string& exact, const std::string& ffmpeg) {
    return {"arithmetic", OptionType::Choice, "exact", 0, 0, {"exact", "ffmpeg"}, "exact: " + exact + "; ffmpeg: " + ffmpeg, false};
}

namespace {

// Binomial taps 1, 2, 1 / 1, 4, 6, 4, 1 / ...: the blur FFmpeg's unsharp makes with its window of `size`.
std::vector<int> binomial_taps(int size) {
    std::vector<int> t = {1};
    for (int i = 1; i < size; ++i) {
        std::vector<int> next(t.size() + 1, 0);
        for (size_t k = 0; k < t.size(); ++k) next[k] += t[k], next[k + 1] += t[k];
        t = next;
    }
    return t;
}

// FFmpeg's unsharp: out = in + amount * (in - blur), the blur binomial over an msize_x x msize_y
// window, as one exact convolution: (1 + amount) at the centre minus amount times the blur.
PlaneOp unsharp_op(int w, int h, double amount, Border border) {
    PlaneOp op;
    if (amount == 0) {
        op.kind = OpKind::Copy;
        op.border = border;
        return op;
    }
    const std::vector<int> row = binomial_taps(w), col = binomial_taps(h);
    const double scale = static_cast<double>(1 << (w - 1)) * (1 << (h - 1));
    std::vector<double> k;
    for (int c : col)
        for (int r : row) k.push_back(-amount * c * r / scale);
    k[static_cast<size_t>(h / 2) * w + w / 2] += 1 + amount;
    return convolve_op(w, h, k, 1, 0, border);
}

// FFmpeg 5.1's own fixed point for one plane (OpKind::UnsharpFixed). Its amount is the option (a
// float in FFmpeg) times 65536, truncated; 0 leaves the plane as it is, as FFmpeg does.
PlaneOp unsharp_fixed_op(const char* plane, int w, int h, double amount, Border border) {
    PlaneOp op;
    op.border = border;
    op.unsharp.steps_x = w / 2;
    op.unsharp.steps_y = h / 2;
    op.unsharp.amount = static_cast<int>(static_cast<double>(static_cast<float>(amount)) * 65536.0);
    if (2 * (op.unsharp.steps_x + op.unsharp.steps_y) >= 26)  // FFmpeg's own limit: its sums would not fit 32 bits
        refuse(std::string("filter 'unsharp': the ") + plane + " window " + std::to_string(w) + "x" + std::to_string(h) +
              " is too big for arithmetic=ffmpeg (FFmpeg refuses it too): half its width plus half its height (rounded "
              "down) must stay below 13");
    op.kind = op.unsharp.amount == 0 ? OpKind::Copy : OpKind::UnsharpFixed;
    return op;
}

}  // namespace

FilterPlan build_unsharp(const OptionValues& o) {
    for (const char* n : {"luma_msize_x", "luma_msize_y", "chroma_msize_x", "chroma_msize_y"})
        if (o.integer(n) % 2 == 0) refuse(std::string("unsharp: ") + n + "=" + std::to_string(o.integer(n)) + " must be odd (3 to 23)");
    const Border border = parse_border(o);
    const bool ffmpeg = o.text("arithmetic") == "ffmpeg";
    auto plane_op = [&](const char* plane, const std::string& prefix) {
        const int w = o.integer(prefix + "_msize_x"), h = o.integer(prefix + "_msize_y");
        const double amount = o.number(prefix + "_amount");
        return ffmpeg ? unsharp_fixed_op(plane, w, h, amount, border) : unsharp_op(w, h, amount, border);
    };
    FilterPlan plan;
    plan.description = ffmpeg ? "unsharp arithmetic=ffmpeg" : "unsharp";
    plan.ops[0] = plane_op("luma", "luma");
    plan.ops[1] = plan.ops[2] = plane_op("chroma", "chroma");
    return plan;
}

namespace {

// The taps of `power` box passes of radius r, one after another: the coefficients of
// (1 + x + ... + x^2r)^power, which sum to (2r + 1)^power.
std::vector<double> box_power_taps(int r, int power) {
    std::vector<double> t = {1};
    for (int p = 0; p < power; ++p) {
        std::vector<double> next(t.size() + 2 * r, 0);
        for (size_t k = 0; k < t.size(); ++k)
            for (int i = 0; i <= 2 * r; ++i) next[k + i] += t[k];
        t = next;
    }
    return t;
}

// One plane of FFmpeg's boxblur: `power` passes of a (2r + 1) box across, then as many down,
// as one exact convolution. Whole-number taps while every sum stays exact in 32 bits; beyond,
// the taps are divided out in double precision.
PlaneOp boxblur_op(const std::string& which, int r, int power, Border border) {
    PlaneOp op;
    op.border = border;
    if (r == 0 || power == 0) return op;  // FFmpeg leaves the plane as it is
    const long long side = 2LL * r * power + 1;
    if (side > kMaxKernelSize)
        refuse("filter 'boxblur': " + which + " radius " + std::to_string(r) + " with power " + std::to_string(power) +
              " is a " + std::to_string(side) + "-tap blur; vfilter takes up to " + std::to_string(kMaxKernelSize) +
              " (radius x power up to " + std::to_string(kMaxKernelSize / 2) + ")");
    const std::vector<double> taps = box_power_taps(r, power);
    double sum = 0;
    for (double t : taps) sum += t;
    const int n = static_cast<int>(side);
    std::vector<double> k;
    k.reserve(static_cast<size_t>(n) * n);
    const bool whole = sum * sum * 65535.0 < 2147483647.0;
    for (double a : taps)
        for (double b : taps) k.push_back(whole ? a * b : a * b / (sum * sum));
    return convolve_op(n, n, std::move(k), whole ? 1.0 / (sum * sum) : 1.0, 0, border);
}

// One plane of FFmpeg's boxblur in its own arithmetic (OpKind::BoxPasses): no limit on the
// taps, since the passes are made one by one.
PlaneOp box_passes_op(int r, int power, Border border) {
    PlaneOp op;
    op.border = border;
    if (r == 0 || power == 0) return op;  // FFmpeg leaves the plane as it is
    op.kind = OpKind::BoxPasses;
    op.box.radius = r;
    op.box.power = power;
    return op;
}

}  // namespace


// FFmpeg's boxblur: radii are expressions of the frame's size (w, h, cw, ch, hsub, vsub), chroma
// and alpha default to luma's. There is no alpha here: its options are read and checked only.
// Before the input is open the radii are only checked to be expressions (of a 1920x1080 4:2:0
// stand-in) and the plan is a placeholder; the chain is built again with the input's frames.
// arithmetic=ffmpeg makes FFmpeg 5.1's passes, each rounded (with border=reflect, its bytes); the
// default is the same blur exact, rounded once.
FilterPlan build_boxblur(const OptionValues& o) {
    const bool known = o.geometry.known();
    const FrameGeometry g = known ? o.geometry : FrameGeometry{1920, 1080, 1, 1};
    const int cw = g.width >> g.log2_chroma_w, ch = g.height >> g.log2_chroma_h;  // FFmpeg's cw and ch (rounded down)
    const std::vector<double> vars = geometry_values(g);
    auto radius = [&](const char* name, const NumberExpr& expr, int w, int h) {
        double v = 0;
        std::string why;
        if (!expr.evaluate(vars, &v, &why))
            refuse(std::string("filter 'boxblur': ") + name + "='" + expr.text() + "' " + why + " (it may use w, h, cw, ch, hsub, vsub)");
        const int r = std::fabs(v) < 1e9 ? static_cast<int>(v) : -1;  // FFmpeg's: the value cast to int
        if (!known) return 0;
        if (r < 0 || 2 * r > std::min(w, h))
            refuse(std::string("filter 'boxblur': ") + name + "='" + expr.text() + "' is " + std::to_string(r) + " on " +
                  std::to_string(g.width) + "x" + std::to_string(g.height) + "; it must be 0 to " + std::to_string(std::min(w, h) / 2));
        return r;
    };
    const NumberExpr& luma = o.expression("luma_radius");
    const int lr = radius("luma_radius", luma, g.width, g.height);
    const int cr = radius("chroma_radius", o.has("chroma_radius") ? o.expression("chroma_radius") : luma, cw, ch);
    radius("alpha_radius", o.has("alpha_radius") ? o.expression("alpha_radius") : luma, g.width, g.height);
    const int lp = o.integer("luma_power");
    const int cp = o.integer("chroma_power") < 0 ? lp : o.integer("chroma_power");
    const Border border = parse_border(o);
    const bool ffmpeg = o.text("arithmetic") == "ffmpeg";
    if (border == Border::Reflect && !ffmpeg)
        refuse("filter 'boxblur': border=reflect is FFmpeg's edge and needs arithmetic=ffmpeg; with arithmetic=exact use "
              "border=mirror, replicate or zero");
    FilterPlan plan;
    plan.description = "boxblur luma " + std::to_string(lr) + "x" + std::to_string(lp) + " chroma " + std::to_string(cr) + "x" +
                       std::to_string(cp) + (ffmpeg ? " arithmetic=ffmpeg" : "");
    plan.ops[0] = ffmpeg ? box_passes_op(lr, lp, border) : boxblur_op("luma", lr, lp, border);
    plan.ops[1] = plan.ops[2] = ffmpeg ? box_passes_op(cr, cp, border) : boxblur_op("chroma", cr, cp, border);
    return plan;
}

}  // namespace vf
