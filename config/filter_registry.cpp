#include "config/filter_registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/error.hpp"
#include "config/kernel_file.hpp"
#include "config/number_expr.hpp"

namespace vf {
namespace {

[[noreturn]] void usage(const std::string& msg) { fail(ErrorCategory::Usage, msg); }

std::string fmt_num(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

// ---- option helpers -------------------------------------------------------------------------

OptionDef border_option() {
    return {"border", OptionType::Choice, "mirror", 0, 0, {"mirror", "replicate", "zero"},
            "what pixels outside the picture read as: mirror (dcb|abcd|cba), replicate (aaa|abcd|ddd), zero", false};
}
OptionDef planes_option(const std::string& def) {
    return {"planes", OptionType::Text, def, 0, 0, {},
            "channels to filter: luma, chroma, all, or a bit mask (1=Y 2=U 4=V)", false};
}
OptionDef rest_option(const std::string& def) {
    return {"rest", OptionType::Choice, def, 0, 0, {"copy", "neutral"},
            "channels not filtered: copy them, or set them neutral (grey)", false};
}

Border parse_border(const OptionValues& o) {
    const std::string& b = o.text("border");
    if (b == "replicate") return Border::Replicate;
    if (b == "zero") return Border::Zero;
    return Border::Mirror;
}

unsigned parse_planes(const OptionValues& o) {
    const std::string& p = o.text("planes");
    if (p == "luma" || p == "y") return 1;
    if (p == "chroma") return 6;
    if (p == "all") return 7;
    char* end = nullptr;
    const long v = std::strtol(p.c_str(), &end, 0);
    if (end == p.c_str() || *end != '\0' || v < 0 || v > 15)
        usage("option planes='" + p + "': expected luma, chroma, all or a mask 0..15");
    return static_cast<unsigned>(v) & 7u;
}

// Applies `op` to the selected channels; the others are copied or set neutral.
FilterPlan per_planes(const std::string& desc, const OptionValues& o, PlaneOp op) {
    FilterPlan plan;
    plan.description = desc;
    const unsigned mask = parse_planes(o);
    const bool neutral = o.has("rest") && o.text("rest") == "neutral";
    for (int c = 0; c < kMaxChannels; ++c) {
        if (mask & (1u << c)) {
            plan.ops[c] = op;
        } else {
            plan.ops[c].kind = (neutral && c > 0) ? OpKind::Fill : OpKind::Copy;
        }
        plan.ops[c].border = op.border;
    }
    return plan;
}

PlaneOp convolve_op(int kw, int kh, std::vector<double> k, double rdiv, double bias, Border border) {
    PlaneOp op;
    op.kind = OpKind::Convolve;
    op.border = border;
    op.conv.kw = kw;
    op.conv.kh = kh;
    op.conv.k = std::move(k);
    op.conv.rdiv = static_cast<float>(rdiv);
    op.conv.bias = static_cast<float>(bias);
    finalize_convolve(op.conv);
    return op;
}

// FFmpeg's convolution default: rdiv = 1 / sum of coefficients, or 1 when they sum to 0.
double default_rdiv(const std::vector<double>& k) {
    double sum = 0;
    for (double v : k) sum += v;
    return sum == 0 ? 1.0 : 1.0 / sum;
}

std::vector<OptionDef> gradient_options() {
    return {planes_option("luma"),
            {"scale", OptionType::Number, "1", 0, 65535, {}, "multiply the magnitude by this", false},
            {"delta", OptionType::Number, "0", -65535, 65535, {}, "then add this", false},
            rest_option("neutral"),
            border_option()};
}

// compass: gx turned to 8 directions, the largest response kept (GradientOp).
FilterPlan gradient_plan(const std::string& name, const OptionValues& o, std::array<int, 9> gx, std::array<int, 9> gy,
                         float divisor, bool compass = false) {
    PlaneOp op;
    op.kind = OpKind::Gradient;
    op.grad.compass = compass;
    op.border = parse_border(o);
    op.grad.gx = gx;
    op.grad.gy = gy;
    op.grad.divisor = divisor;
    op.grad.scale = static_cast<float>(o.number("scale"));
    op.grad.delta = static_cast<float>(o.number("delta"));
    return per_planes(name, o, op);
}

// Gaussian taps in fixed point: whole numbers summing to exactly 1024 per axis, so a flat
// picture stays flat and every backend sums exactly (see docs/filters.md).
std::vector<int> gaussian_taps(double sigma, int size) {
    const int r = size / 2;
    std::vector<double> g(size);
    double sum = 0;
    for (int i = 0; i < size; ++i) {
        const double x = i - r;
        g[i] = std::exp(-x * x / (2 * sigma * sigma));
        sum += g[i];
    }
    std::vector<int> taps(size);
    int total = 0;
    for (int i = 0; i < size; ++i) {
        taps[i] = static_cast<int>(std::lround(g[i] / sum * 1024.0));
        total += taps[i];
    }
    taps[r] += 1024 - total;
    return taps;
}

std::vector<double> outer(const std::vector<int>& col, const std::vector<int>& row) {
    std::vector<double> k;
    for (int c : col)
        for (int r : row) k.push_back(static_cast<double>(c) * r);
    return k;
}

// ---- the filters ----------------------------------------------------------------------------

FilterPlan build_identity(const OptionValues&) {
    FilterPlan p;
    p.description = "identity";
    return p;
}

// The taps a Gaussian of `sigma` takes (2 ceil(4 sigma) + 1, or `size` when given); a usage error
// naming `filter` when that is more than the largest kernel. `hint` says what to change.
int gaussian_size(const std::string& filter, double sigma, int size, const std::string& hint) {
    if (size == 0) size = 2 * static_cast<int>(std::ceil(4 * sigma)) + 1;
    if (size > kMaxKernelSize)
        usage(filter + ": sigma=" + fmt_num(sigma) + " needs a " + std::to_string(size) + "-tap kernel; the largest is " +
              std::to_string(kMaxKernelSize) + hint);
    return size;
}

FilterPlan build_gaussian(const OptionValues& o) {
    const double sigma = o.number("sigma");
    const int given = o.integer("size");
    if (given % 2 == 0 && given != 0) usage("gaussian: size=" + std::to_string(given) + " must be odd");
    const int size = gaussian_size("gaussian", sigma, given, " (give a smaller size= or sigma=)");
    const std::vector<int> taps = gaussian_taps(sigma, size);
    PlaneOp op = convolve_op(size, size, outer(taps, taps), 1.0 / (1024.0 * 1024.0), 0, parse_border(o));
    return per_planes("gaussian sigma=" + fmt_num(sigma) + " size=" + std::to_string(size), o, op);
}

// FFmpeg's gblur (an IIR approximation there) as the exact Gaussian: sigma across, sigmaV down
// (-1: the same); steps only refines FFmpeg's approximation and changes nothing here.
FilterPlan build_gblur(const OptionValues& o) {
    const double sx = o.number("sigma"), sy = o.number("sigmaV") < 0 ? sx : o.number("sigmaV");
    auto taps_for = [](double sigma) {
        if (sigma <= 0) return std::vector<int>{1024};
        return gaussian_taps(sigma, gaussian_size("gblur", sigma, 0, ""));
    };
    const std::vector<int> row = taps_for(sx), col = taps_for(sy);
    PlaneOp op = convolve_op(static_cast<int>(row.size()), static_cast<int>(col.size()), outer(col, row),
                             1.0 / (1024.0 * 1024.0), 0, parse_border(o));
    return per_planes("gblur sigma=" + fmt_num(sx) + " sigmaV=" + fmt_num(sy), o, op);
}

// FFmpeg's avgblur: the mean of a (2 sizeX + 1) x (2 sizeY + 1) window (sizeY 0: sizeX). As FFmpeg
// 5.1 does, the radii are cut to half the chroma plane's width and height (rounded up planes) once
// the input is known; round=down truncates each mean as FFmpeg does (with its border, replicate,
// --compat ffmpeg gives its bytes), round=nearest rounds it.
FilterPlan build_avgblur(const OptionValues& o) {
    int rx = o.integer("sizeX"), ry = o.integer("sizeY") == 0 ? rx : o.integer("sizeY");
    const int limit = kMaxKernelSize / 2;
    if (o.geometry.known()) {
        const FrameGeometry& g = o.geometry;
        const int cw = -((-g.width) >> g.log2_chroma_w), ch = -((-g.height) >> g.log2_chroma_h);  // FFmpeg's AV_CEIL_RSHIFT
        rx = std::min(rx, cw / 2);
        ry = std::min(ry, ch / 2);
        if (rx > limit || ry > limit)
            usage("filter 'avgblur': sizeX=" + std::to_string(rx) + " sizeY=" + std::to_string(ry) + " on " +
                  std::to_string(g.width) + "x" + std::to_string(g.height) + " is a " + std::to_string(2 * rx + 1) + "x" +
                  std::to_string(2 * ry + 1) + " window; vfilter takes radii up to " + std::to_string(limit));
        if (rx < 1 || ry < 1)  // FFmpeg would average 1-sample-wide windows; no box row takes those
            usage("filter 'avgblur': the " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                  " input is too small; its chroma planes must be at least 2 samples wide and tall");
    } else {
        // A placeholder until the input is open (the chain is built again for its frames).
        rx = std::min(rx, limit);
        ry = std::min(ry, limit);
    }
    const std::vector<int> row(2 * rx + 1, 1), col(2 * ry + 1, 1);
    const int area = (2 * rx + 1) * (2 * ry + 1);
    PlaneOp op = convolve_op(2 * rx + 1, 2 * ry + 1, outer(col, row), 1.0 / area, 0, parse_border(o));
    const bool down = o.text("round") == "down";
    if (down) op.conv.divisor = area;
    return per_planes("avgblur sizeX=" + std::to_string(rx) + " sizeY=" + std::to_string(ry) + (down ? " round=down" : ""), o, op);
}

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

FilterPlan build_unsharp(const OptionValues& o) {
    for (const char* n : {"luma_msize_x", "luma_msize_y", "chroma_msize_x", "chroma_msize_y"})
        if (o.integer(n) % 2 == 0) usage(std::string("unsharp: ") + n + "=" + o.text(n) + " must be odd (3 to 23)");
    const Border border = parse_border(o);
    FilterPlan plan;
    plan.description = "unsharp";
    plan.ops[0] = unsharp_op(o.integer("luma_msize_x"), o.integer("luma_msize_y"), o.number("luma_amount"), border);
    plan.ops[1] = plan.ops[2] =
        unsharp_op(o.integer("chroma_msize_x"), o.integer("chroma_msize_y"), o.number("chroma_amount"), border);
    return plan;
}

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
        usage("filter 'boxblur': " + which + " radius " + std::to_string(r) + " with power " + std::to_string(power) +
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

// FFmpeg's boxblur: radii are expressions of the frame's size (w, h, cw, ch, hsub, vsub), chroma
// and alpha default to luma's. There is no alpha here: its options are read and checked only.
// Before the input is open the radii are only checked to be expressions (of a 1920x1080 4:2:0
// stand-in) and the plan is a placeholder; the chain is built again with the input's frames.
FilterPlan build_boxblur(const OptionValues& o) {
    const bool known = o.geometry.known();
    const FrameGeometry g = known ? o.geometry : FrameGeometry{1920, 1080, 1, 1};
    const int cw = g.width >> g.log2_chroma_w, ch = g.height >> g.log2_chroma_h;  // FFmpeg's cw and ch (rounded down)
    const ExprVariables vars = {{"w", double(g.width)}, {"h", double(g.height)},         {"cw", double(cw)},
                                {"ch", double(ch)},     {"hsub", double(1 << g.log2_chroma_w)}, {"vsub", double(1 << g.log2_chroma_h)}};
    auto radius = [&](const char* name, const std::string& expr, int w, int h) {
        double v = 0;
        std::string why;
        if (!evaluate_number(expr, &v, &why, vars))
            usage(std::string("filter 'boxblur': ") + name + "='" + expr + "' " + why + " (it may use w, h, cw, ch, hsub, vsub)");
        const int r = std::fabs(v) < 1e9 ? static_cast<int>(v) : -1;  // FFmpeg's: the value cast to int
        if (!known) return 0;
        if (r < 0 || 2 * r > std::min(w, h))
            usage(std::string("filter 'boxblur': ") + name + "='" + expr + "' is " + std::to_string(r) + " on " +
                  std::to_string(g.width) + "x" + std::to_string(g.height) + "; it must be 0 to " + std::to_string(std::min(w, h) / 2));
        return r;
    };
    const std::string luma = o.text("luma_radius");
    const int lr = radius("luma_radius", luma, g.width, g.height);
    const int cr = radius("chroma_radius", o.has("chroma_radius") ? o.text("chroma_radius") : luma, cw, ch);
    radius("alpha_radius", o.has("alpha_radius") ? o.text("alpha_radius") : luma, g.width, g.height);
    const int lp = o.integer("luma_power");
    const int cp = o.integer("chroma_power") < 0 ? lp : o.integer("chroma_power");
    const Border border = parse_border(o);
    FilterPlan plan;
    plan.description = "boxblur luma " + std::to_string(lr) + "x" + std::to_string(lp) + " chroma " + std::to_string(cr) + "x" +
                       std::to_string(cp);
    plan.ops[0] = boxblur_op("luma", lr, lp, border);
    plan.ops[1] = plan.ops[2] = boxblur_op("chroma", cr, cp, border);
    return plan;
}

FilterPlan build_box(const OptionValues& o) {
    const int r = o.integer("radius");
    const int size = 2 * r + 1;
    const std::vector<int> ones(size, 1);
    PlaneOp op = convolve_op(size, size, outer(ones, ones), 1.0 / (size * size), 0, parse_border(o));
    return per_planes("box radius=" + std::to_string(r), o, op);
}

FilterPlan build_sharpen(const OptionValues& o) {
    // identity + s * (identity - cross-shaped blur), in thousandths so the sums stay whole.
    const int s = static_cast<int>(std::lround(o.number("strength") * 1000));
    std::vector<double> k = {0, double(-s), 0, double(-s), double(1000 + 4 * s), double(-s), 0, double(-s), 0};
    PlaneOp op = convolve_op(3, 3, k, 1.0 / 1000, 0, parse_border(o));
    return per_planes("sharpen strength=" + fmt_num(s / 1000.0), o, op);
}

FilterPlan build_emboss(const OptionValues& o) {
    std::vector<double> k = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
    PlaneOp op = convolve_op(3, 3, k, 1, o.number("bias"), parse_border(o));
    return per_planes("emboss", o, op);
}

FilterPlan build_laplacian(const OptionValues& o) {
    std::array<int, 9> k = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    if (o.text("diagonal") == "1") k = {1, 1, 1, 1, -8, 1, 1, 1, 1};
    return gradient_plan("laplacian", o, k, {}, 1.0f);
}

// convolution: FFmpeg's options (m, rdiv, bias, mode; 0m.. per plane) plus file= and border=.
FilterPlan build_convolution(const OptionValues& o) {
    FilterPlan plan;
    plan.description = "convolution";
    const Border border = parse_border(o);
    bool any = false;
    for (int c = 0; c < kMaxChannels; ++c) {
        const std::string p = std::to_string(c);
        auto pick = [&](const std::string& name) -> std::string {
            if (o.has(p + name)) return o.text(p + name);
            if (o.has(name)) return o.text(name);
            return "";
        };
        const std::string m = pick("m"), file = pick("file"), mode = pick("mode");
        if (!m.empty() && !file.empty()) usage("convolution: give either m= or file= for a plane, not both");
        KernelMatrix km;
        const std::string origin = "convolution " + (o.has(p + "m") ? p + "m" : std::string("m"));
        if (!file.empty()) {
            km = read_kernel_file(file, o.kernel_files);
        } else if (!m.empty()) {
            std::string t = m;
            std::replace(t.begin(), t.end(), '|', ' ');
            km = parse_kernel_text(t, origin, false);  // one line: width = count
            const int n = km.width;
            if (n > kMaxKernelSize * kMaxKernelSize)
                usage(origin + ": " + std::to_string(n) + " values; the largest kernel is " + std::to_string(kMaxKernelSize) +
                      "x" + std::to_string(kMaxKernelSize));
            if (mode.empty() || mode == "square") {
                const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))));
                if (side * side != n || side % 2 == 0)
                    usage(origin + ": " + std::to_string(n) +
                          " values do not make an odd square matrix (9, 25, 49, ...); use mode=row or mode=column for 1D");
                km.width = km.height = side;
            }
        } else {
            plan.ops[c].kind = OpKind::Copy;
            plan.ops[c].border = border;
            continue;
        }
        if (mode == "row" || mode == "column") {
            if (km.width != 1 && km.height != 1) usage(origin + ": mode=" + mode + " needs a single row of values");
            const int n = km.width * km.height;
            if (n % 2 == 0) usage(origin + ": mode=" + mode + " needs an odd number of values, got " + std::to_string(n));
            if (n > kMaxKernelSize) usage(origin + ": mode=" + mode + " takes at most " + std::to_string(kMaxKernelSize) + " values");
            km.width = mode == "row" ? n : 1;
            km.height = mode == "row" ? 1 : n;
        }
        const double rdiv = pick("rdiv").empty() ? 0.0 : std::strtod(pick("rdiv").c_str(), nullptr);
        const double bias = pick("bias").empty() ? 0.0 : std::strtod(pick("bias").c_str(), nullptr);
        plan.ops[c] = convolve_op(km.width, km.height, km.values, rdiv == 0 ? default_rdiv(km.values) : rdiv, bias, border);
        any = true;
    }
    if (!any) usage("convolution: no matrix given; use m='0 -1 0 -1 5 -1 0 -1 0' or file=kernel.txt");
    return plan;
}

// One of FFmpeg's 3x3 gradient filters: its options in FFmpeg's order (planes, scale, delta), and
// FFmpeg's default of filtering every plane under --compat ffmpeg.
FilterDef gradient_filter(const std::string& name, const std::string& help, std::array<int, 9> gx, std::array<int, 9> gy,
                          float divisor, bool compass = false) {
    FilterDef f(name, help, gradient_options(),
                [=](const OptionValues& o) { return gradient_plan(name, o, gx, gy, divisor, compass); });
    f.positions = {"planes", "scale", "delta"};
    f.ffmpeg_defaults = {{"planes", "15"}};
    return f;
}

std::vector<FilterDef> make_table() {
    std::vector<FilterDef> t;
    t.push_back({"identity", "pass frames through unchanged (measures the pipeline itself)", {}, build_identity});
    t.push_back(gradient_filter("sobel", "Sobel gradient magnitude (FFmpeg's sobel)", {-1, -2, -1, 0, 0, 0, 1, 2, 1},
                                {-1, 0, 1, -2, 0, 2, -1, 0, 1}, 1.0f));
    t.push_back(gradient_filter("prewitt", "Prewitt gradient magnitude (FFmpeg's prewitt)", {-1, -1, -1, 0, 0, 0, 1, 1, 1},
                                {-1, 0, 1, -1, 0, 1, -1, 0, 1}, 1.0f));
    t.push_back(gradient_filter("scharr", "Scharr gradient magnitude (FFmpeg's scharr)", {-47, -162, -47, 0, 0, 0, 47, 162, 47},
                                {-47, 0, 47, -162, 0, 162, -47, 0, 47}, 256.0f));
    t.push_back(gradient_filter("roberts", "Roberts cross gradient magnitude (FFmpeg's roberts)", {1, -1, 0, 0, 0, 0, 0, 0, 0},
                                {0, 0, 0, -1, 1, 0, 0, 0, 0}, 1.0f));
    // FFmpeg's kirsch: the largest response of this kernel turned to each of 8 directions.
    t.push_back(gradient_filter("kirsch", "Kirsch compass gradient: the strongest of 8 directions (FFmpeg's kirsch)",
                                {5, 5, 5, -3, 0, -3, -3, -3, -3}, {}, 1.0f, true));
    {
        auto opts = gradient_options();
        opts.insert(opts.begin(), {"diagonal", OptionType::Choice, "0", 0, 0, {"0", "1"},
                                   "1: 8-neighbour kernel (1 1 1 1 -8 1 1 1 1) instead of 4-neighbour", false});
        t.push_back({"laplacian", "absolute Laplacian |d2/dx2 + d2/dy2|, times scale, plus delta", opts, build_laplacian});
        t.back().positions = {"diagonal", "planes", "scale", "delta"};
    }
    t.push_back({"gaussian", "Gaussian blur, separable, taps in 10-bit fixed point",
                 {{"sigma", OptionType::Number, "1", 0.05, 1000, {}, "standard deviation in pixels", false},
                  {"size", OptionType::Integer, "0", 0, kMaxKernelSize, {}, "kernel side (odd); 0 = 2*ceil(4*sigma)+1", false},
                  planes_option("all"), rest_option("copy"), border_option()},
                 build_gaussian});
    t.back().positions = {"sigma", "size", "planes"};
    t.push_back({"gblur", "Gaussian blur under FFmpeg's name and options; exact here, an IIR approximation in FFmpeg",
                 {{"sigma", OptionType::Number, "0.5", 0, 1024, {}, "standard deviation across, in pixels", false},
                  {"steps", OptionType::Integer, "1", 1, 6, {}, "FFmpeg's approximation steps (no effect: the filter is exact)", false},
                  planes_option("15"),
                  {"sigmaV", OptionType::Number, "-1", -1, 1024, {}, "standard deviation down; -1 = sigma", false},
                  rest_option("copy"), border_option()},
                 build_gblur});
    t.back().positions = {"sigma", "steps", "planes", "sigmaV"};
    t.push_back({"avgblur", "mean of a (2 sizeX + 1) x (2 sizeY + 1) window (FFmpeg's avgblur)",
                 {{"sizeX", OptionType::Integer, "1", 1, 1024, {},
                   "horizontal radius (cut to half the chroma width, as FFmpeg does; up to 63 after that)", false},
                  planes_option("15"),
                  {"sizeY", OptionType::Integer, "0", 0, 1024, {}, "vertical radius; 0 = sizeX", false},
                  rest_option("copy"), border_option(),
                  {"round", OptionType::Choice, "nearest", 0, 0, {"nearest", "down"},
                   "each mean rounded to the nearest value, or down (FFmpeg's avgblur truncates)", false}},
                 build_avgblur});
    t.back().positions = {"sizeX", "planes", "sizeY"};
    // FFmpeg's avgblur repeats the edge sample and truncates its means: --compat ffmpeg gives its bytes.
    t.back().ffmpeg_defaults = {{"border", "replicate"}, {"round", "down"}};
    {
        auto size = [](const std::string& name, const std::string& what) {
            return OptionDef{name, OptionType::Integer, "5", 3, 23, {}, what + " (odd)", false};
        };
        auto amount = [](const std::string& name, const std::string& def, const std::string& what) {
            return OptionDef{name, OptionType::Number, def, -2, 5, {}, what + "; negative blurs", false};
        };
        t.push_back({"unsharp", "FFmpeg's unsharp: in + amount x (in - binomial blur), per luma and chroma; exact here",
                     {size("luma_msize_x", "luma window width"), size("luma_msize_y", "luma window height"),
                      amount("luma_amount", "1", "luma strength"), size("chroma_msize_x", "chroma window width"),
                      size("chroma_msize_y", "chroma window height"), amount("chroma_amount", "0", "chroma strength"),
                      size("alpha_msize_x", "alpha window width (no alpha here: unused)"),
                      size("alpha_msize_y", "alpha window height (unused)"), amount("alpha_amount", "0", "alpha strength (unused)"),
                      {"border", OptionType::Choice, "replicate", 0, 0, {"mirror", "replicate", "zero"},
                       "what pixels outside the picture read as (FFmpeg's unsharp repeats the edge)", false}},
                     build_unsharp});
        t.back().positions = {"luma_msize_x", "luma_msize_y", "luma_amount", "chroma_msize_x", "chroma_msize_y",
                              "chroma_amount", "alpha_msize_x", "alpha_msize_y", "alpha_amount"};
    }
    {
        auto radius = [](const std::string& name, const std::string& def, const std::string& what) {
            return OptionDef{name, OptionType::Text, def, 0, 0, {}, what + ": an expression of w, h, cw, ch, hsub, vsub", false};
        };
        auto power = [](const std::string& name, const std::string& def, double min, const std::string& what) {
            return OptionDef{name, OptionType::Integer, def, min, 63, {}, what, false};
        };
        t.push_back({"boxblur", "FFmpeg's boxblur: power passes of a box, per luma and chroma; exact here (one rounding)",
                     {radius("luma_radius", "2", "luma box radius"), power("luma_power", "2", 0, "luma passes"),
                      radius("chroma_radius", "", "chroma box radius (default: luma's)"),
                      power("chroma_power", "-1", -1, "chroma passes; -1 = luma's"),
                      radius("alpha_radius", "", "alpha box radius (no alpha here: checked, unused)"),
                      power("alpha_power", "-1", -1, "alpha passes (unused)"), border_option()},
                     build_boxblur});
        t.back().positions = {"luma_radius", "luma_power", "chroma_radius", "chroma_power", "alpha_radius", "alpha_power"};
        t.back().aliases = {{"lr", "luma_radius"},   {"lp", "luma_power"}, {"cr", "chroma_radius"},
                            {"cp", "chroma_power"}, {"ar", "alpha_radius"}, {"ap", "alpha_power"}};
    }
    t.push_back({"box", "box (mean) blur of side 2*radius+1, separable",
                 {{"radius", OptionType::Integer, "1", 1, kMaxKernelSize / 2, {}, "half the side, excluding the centre", false},
                  planes_option("all"), rest_option("copy"), border_option()},
                 build_box});
    t.back().positions = {"radius", "planes"};
    t.push_back({"sharpen", "3x3 sharpening: identity + strength * (identity - cross blur)",
                 {{"strength", OptionType::Number, "0.5", 0, 1, {}, "0 = none, 1 = 0 -1 0 -1 5 -1 0 -1 0", false},
                  planes_option("luma"), rest_option("copy"), border_option()},
                 build_sharpen});
    t.back().positions = {"strength", "planes"};
    t.push_back({"emboss", "3x3 emboss (-2 -1 0 -1 1 1 0 1 2)",
                 {{"bias", OptionType::Number, "0", -65535, 65535, {}, "added to the result", false},
                  planes_option("luma"), rest_option("neutral"), border_option()},
                 build_emboss});
    t.back().positions = {"bias", "planes"};
    t.push_back({"convolution", "custom matrix, FFmpeg's convolution semantics, any odd size up to 127x127",
                 {{"m", OptionType::Text, "", 0, 0, {}, "coefficients, row by row, separated by spaces or |", true},
                  {"file", OptionType::Text, "", 0, 0, {}, "read the matrix from a text file, one row per line", true},
                  {"rdiv", OptionType::Number, "0", 0, 1e9, {}, "multiply the sum by this; 0 = 1/sum of coefficients", true},
                  {"bias", OptionType::Number, "0", -1e9, 1e9, {}, "then add this", true},
                  {"mode", OptionType::Choice, "square", 0, 0, {"square", "row", "column"}, "how m= is shaped", true},
                  border_option()},
                 build_convolution});
    // FFmpeg's order: 0m..3m, 0rdiv..3rdiv, 0bias..3bias, 0mode..3mode (plane 3 is alpha, which
    // vfilter's formats do not have: accepted and unused, as FFmpeg does on formats without it).
    for (const char* name : {"m", "rdiv", "bias", "mode"})
        for (int plane = 0; plane < 4; ++plane) t.back().positions.push_back(std::to_string(plane) + name);
    return t;
}

double parse_number(const std::string& filter, const std::string& key, const std::string& v) {
    double d = 0;
    std::string why;
    if (!evaluate_number(v, &d, &why)) usage("filter '" + filter + "': option " + key + "='" + v + "' " + why);
    return d;
}

// The full value of a number, as text the option table keeps.
std::string exact_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

const std::string& OptionValues::text(const std::string& name) const {
    static const std::string empty;
    auto it = values_.find(name);
    return it == values_.end() ? empty : it->second;
}
double OptionValues::number(const std::string& name) const { return std::strtod(text(name).c_str(), nullptr); }
int OptionValues::integer(const std::string& name) const { return static_cast<int>(std::strtol(text(name).c_str(), nullptr, 10)); }

const std::vector<FilterDef>& filter_table() {
    static const std::vector<FilterDef> table = make_table();
    return table;
}

const FilterDef* find_filter(const std::string& name) {
    for (const auto& f : filter_table())
        if (f.name == name) return &f;
    return nullptr;
}

FilterPlan build_plan(const FilterSpec& spec, FilterDefaults defaults, const FrameGeometry& geometry, const KernelFiles& kernel_files) {
    const FilterDef* def = find_filter(spec.name);
    if (!def) {
        std::string names;
        for (const auto& f : filter_table()) names += (names.empty() ? "" : ", ") + f.name;
        usage("unknown filter '" + spec.name + "'; available: " + names);
    }
    OptionValues values;
    values.geometry = geometry;
    values.kernel_files = kernel_files;
    for (const auto& d : def->options)
        if (!d.default_value.empty() && !d.per_plane) values.set(d.name, d.default_value);
    if (defaults == FilterDefaults::Ffmpeg)
        for (const auto& [name, value] : def->ffmpeg_defaults) values.set(name, value);
    size_t position = 0;
    bool named_planes = false, named_rest = false;
    for (const auto& kv : spec.options) {
        std::string key = kv.first;
        if (key.empty()) {  // by position
            if (position >= def->positions.size()) {
                std::string order;
                for (const auto& n : def->positions) order += (order.empty() ? "" : ", ") + n;
                usage("filter '" + spec.name + "': value '" + kv.second + "' is number " + std::to_string(position + 1) +
                      " by position; " + spec.name +
                      (order.empty() ? " takes none by position" : " takes " + std::to_string(def->positions.size()) + " (" + order + ")"));
            }
            key = def->positions[position++];
        }
        for (const auto& [alias, name] : def->aliases)
            if (key == alias) key = name;
        named_planes |= key == "planes";
        named_rest |= key == "rest";
        const OptionDef* d = nullptr;
        for (const auto& od : def->options) {
            if (od.name == key) d = &od;
            else if (od.per_plane && key.size() == od.name.size() + 1 && key[0] >= '0' && key[0] <= '3' &&
                     key.substr(1) == od.name)
                d = &od;
        }
        if (!d) {
            std::string names;
            for (const auto& od : def->options) names += (names.empty() ? "" : ", ") + od.name;
            usage("filter '" + spec.name + "': unknown option '" + key + "'" +
                  (names.empty() ? "; it takes no options" : "; options: " + names));
        }
        std::string v = kv.second;
        switch (d->type) {
        case OptionType::Number: {
            const double x = parse_number(spec.name, key, v);
            if (x < d->min || x > d->max)
                usage("filter '" + spec.name + "': " + key + "=" + v + " is out of range [" + fmt_num(d->min) + ", " +
                      fmt_num(d->max) + "]");
            v = exact_text(x);
            break;
        }
        case OptionType::Integer: {
            const double x = parse_number(spec.name, key, v);
            if (x != std::floor(x)) usage("filter '" + spec.name + "': " + key + "=" + v + " must be a whole number");
            if (x < d->min || x > d->max)
                usage("filter '" + spec.name + "': " + key + "=" + v + " is out of range [" + fmt_num(d->min) + ", " +
                      fmt_num(d->max) + "]");
            v = exact_text(x);
            break;
        }
        case OptionType::Choice:
            if (std::find(d->choices.begin(), d->choices.end(), v) == d->choices.end()) {
                std::string c;
                for (const auto& s : d->choices) c += (c.empty() ? "" : "|") + s;
                usage("filter '" + spec.name + "': " + key + "='" + v + "' is not one of " + c);
            }
            break;
        case OptionType::Text:
            if (v.empty()) usage("filter '" + spec.name + "': " + key + "= is empty");
            break;
        }
        values.set(key, v);
    }
    // FFmpeg's meaning of planes: the planes left out are copied unchanged.
    if (named_planes && !named_rest && values.has("rest")) values.set("rest", "copy");
    return def->build(values);
}

std::vector<FilterPlan> build_chain(const std::string& chain_text, FilterDefaults defaults, const FrameGeometry& geometry,
                                    const KernelFiles& kernel_files) {
    std::vector<FilterPlan> chain;
    for (const auto& spec : parse_filter_specs(chain_text)) chain.push_back(build_plan(spec, defaults, geometry, kernel_files));
    return chain;
}

std::string describe_filters() {
    std::ostringstream out;
    out << "Filters (chain with ',', options with ':', e.g. --filter \"gaussian=sigma=2,sobel=planes=all\"):\n";
    for (const auto& f : filter_table()) {
        out << "\n  " << f.name << "  " << f.help << "\n";
        if (!f.positions.empty()) {
            std::string order;
            for (const auto& n : f.positions) order += (order.empty() ? "" : ":") + n;
            out << "      by position: " << f.name << "=" << order << "\n";
        }
        for (const auto& [name, value] : f.ffmpeg_defaults)
            out << "      --compat ffmpeg: " << name << " defaults to " << value << " (FFmpeg's default)\n";
        if (!f.aliases.empty()) {
            std::string short_names;
            for (const auto& [alias, name] : f.aliases) short_names += (short_names.empty() ? "" : ", ") + alias + " = " + name;
            out << "      short names: " << short_names << "\n";
        }
        for (const auto& o : f.options) {
            out << "      " << o.name;
            if (o.per_plane) out << " (or 0" << o.name << " 1" << o.name << " 2" << o.name << " for one plane)";
            out << "  " << o.help;
            if (o.type == OptionType::Choice) {
                std::string c;
                for (const auto& s : o.choices) c += (c.empty() ? "" : "|") + s;
                out << " [" << c << "]";
            } else if (o.type == OptionType::Number || o.type == OptionType::Integer) {
                out << " [" << fmt_num(o.min) << ".." << fmt_num(o.max) << "]";
            }
            if (!o.default_value.empty()) out << " (default " << o.default_value << ")";
            out << "\n";
        }
    }
    return out.str();
}

}  // namespace vf
