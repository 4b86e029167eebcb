#include "config/filter_builders.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.hpp"
#include "config/kernel_file.hpp"
#include "config/number_expr.hpp"

namespace vf {
namespace {

[[noreturn]] void usage(const std::string& msg) { fail(ErrorCategory::Usage, msg); }


// ---- option helpers -------------------------------------------------------------------------

}  // namespace

OptionDef border_option() {
    return {"border", OptionType::Choice, "mirror", 0, 0, {"mirror", "replicate", "zero"},
            "what pixels outside the picture read as: mirror (dcb|abcd|cba), replicate (aaa|abcd|ddd), zero", false};
}
OptionDef ffmpeg_border_option() {
    return {"border", OptionType::Choice, "mirror", 0, 0, {"mirror", "replicate", "zero", "ffmpeg"},
            "what pixels outside the picture read as: mirror (dcb|abcd|cba), replicate (aaa|abcd|ddd), zero, or ffmpeg "
            "(FFmpeg 5.1's: a 3x3 kernel reads cb|abcd|dc, mirrored at the top and left and the edge repeated at the "
            "bottom and right; larger kernels mirror)", false};
}
OptionDef planes_option(const std::string& def) {
    return {"planes", OptionType::Planes, def, 0, 0, {},
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
    if (b == "reflect") return Border::Reflect;
    if (b == "ffmpeg") return Border::MirrorRepeat;  // 3x3 kernels; convolution's larger ones mirror (below)
    return Border::Mirror;
}

namespace {

// The channels planes= selects (a mask of Y, U, V; a fourth bit, alpha, is accepted and unused).
unsigned parse_planes(const OptionValues& o) { return static_cast<unsigned>(o.number("planes")) & 7u; }

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

}  // namespace

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

namespace {

// FFmpeg's convolution default: rdiv = 1 / sum of coefficients, or 1 when they sum to 0.
double default_rdiv(const std::vector<double>& k) {
    double sum = 0;
    for (double v : k) sum += v;
    return sum == 0 ? 1.0 : 1.0 / sum;
}

}  // namespace

std::vector<OptionDef> gradient_options() {
    return {planes_option("luma"),
            {"scale", OptionType::Number, "1", 0, 65535, {}, "multiply the magnitude by this", false},
            {"delta", OptionType::Number, "0", -65535, 65535, {}, "then add this", false},
            rest_option("neutral"),
            ffmpeg_border_option()};
}

// compass: gx turned to 8 directions, the largest response kept (GradientOp).
FilterPlan gradient_plan(const std::string& name, const OptionValues& o, std::array<int, 9> gx, std::array<int, 9> gy,
                         float divisor, bool compass) {
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

namespace {

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

}  // namespace

FilterPlan build_identity(const OptionValues&) {
    FilterPlan p;
    p.description = "identity";
    return p;
}

namespace {

// The taps a Gaussian of `sigma` takes (2 ceil(4 sigma) + 1, or `size` when given); a usage error
// naming `filter` when that is more than the largest kernel. `hint` says what to change.
int gaussian_size(const std::string& filter, double sigma, int size, const std::string& hint) {
    if (size == 0) size = 2 * static_cast<int>(std::ceil(4 * sigma)) + 1;
    if (size > kMaxKernelSize)
        usage(filter + ": sigma=" + format_number(sigma) + " needs a " + std::to_string(size) + "-tap kernel; the largest is " +
              std::to_string(kMaxKernelSize) + hint);
    return size;
}

}  // namespace

FilterPlan build_gaussian(const OptionValues& o) {
    const double sigma = o.number("sigma");
    const int given = o.integer("size");
    if (given % 2 == 0 && given != 0) usage("gaussian: size=" + std::to_string(given) + " must be odd");
    const int size = gaussian_size("gaussian", sigma, given, " (give a smaller size= or sigma=)");
    const std::vector<int> taps = gaussian_taps(sigma, size);
    PlaneOp op = convolve_op(size, size, outer(taps, taps), 1.0 / (1024.0 * 1024.0), 0, parse_border(o));
    return per_planes("gaussian sigma=" + format_number(sigma) + " size=" + std::to_string(size), o, op);
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
    return per_planes("gblur sigma=" + format_number(sx) + " sigmaV=" + format_number(sy), o, op);
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
    return per_planes("sharpen strength=" + format_number(s / 1000.0), o, op);
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
        auto pick = [&](const std::string& name) {
            const OptionValue* v = o.find(p + name);
            return v ? v : o.find(name);
        };
        const OptionValue *m = pick("m"), *file = pick("file"), *mode_given = pick("mode");
        const std::string mode = mode_given ? std::get<std::string>(*mode_given) : "";
        if (m && file) usage("convolution: give either m= or file= for a plane, not both");
        KernelMatrix km;
        const std::string origin = "convolution " + (o.has(p + "m") ? p + "m" : std::string("m"));
        if (file) {
            km = read_kernel_file(std::get<std::string>(*file), o.kernel_files);
        } else if (m) {
            km = std::get<KernelMatrix>(*m);
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
        const OptionValue *rdiv_given = pick("rdiv"), *bias_given = pick("bias");
        const double rdiv = rdiv_given ? std::get<double>(*rdiv_given) : 0.0;
        const double bias = bias_given ? std::get<double>(*bias_given) : 0.0;
        // border=ffmpeg: FFmpeg 5.1 folds its 3x3 square kernels' edge its own way, every other size
        // and row or column kernel about the edge sample (avpriv_mirror).
        const bool ffmpeg_3x3 = km.width == 3 && km.height == 3 && mode != "row" && mode != "column";
        const Border plane_border = border == Border::MirrorRepeat && !ffmpeg_3x3 ? Border::Mirror : border;
        plan.ops[c] = convolve_op(km.width, km.height, km.values, rdiv == 0 ? default_rdiv(km.values) : rdiv, bias, plane_border);
        any = true;
    }
    if (!any) usage("convolution: no matrix given; use m='0 -1 0 -1 5 -1 0 -1 0' or file=kernel.txt");
    return plan;
}

}  // namespace vf
