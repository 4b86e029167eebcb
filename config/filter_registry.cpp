#include "config/filter_registry.hpp"

#include <sstream>

#include "config/filter_builders.hpp"

namespace vf {
namespace {


// One of FFmpeg's 3x3 gradient filters: its options in FFmpeg's order (planes, scale, delta), and
// FFmpeg's defaults under --compat ffmpeg: every plane filtered, FFmpeg 5.1's edge.
FilterDef gradient_filter(const std::string& name, const std::string& help, std::array<int, 9> gx, std::array<int, 9> gy,
                          float divisor, bool compass = false) {
    FilterDef f(name, help, gradient_options(),
                [=](const OptionValues& o) { return gradient_plan(name, o, gx, gy, divisor, compass); });
    f.positions = {"planes", "scale", "delta"};
    f.ffmpeg_defaults = {{"planes", "15"}, {"border", "ffmpeg"}};
    return f;
}

// FFmpeg's gradient filters (the edge detectors) and the Laplacian.
void add_gradient_filters(std::vector<FilterDef>& t) {
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
}

// Gaussian blurs (vfilter's and FFmpeg's gblur) and FFmpeg's avgblur.
void add_gaussian_and_mean_blurs(std::vector<FilterDef>& t) {
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
}

// FFmpeg's unsharp and boxblur: a size and an amount (or radius and passes) per luma and chroma.
void add_luma_chroma_blurs(std::vector<FilterDef>& t) {
    {
        auto size = [](const std::string& name, const std::string& what) {
            return OptionDef{name, OptionType::Integer, "5", 3, 23, {}, what + " (odd)", false};
        };
        auto amount = [](const std::string& name, const std::string& def, const std::string& what) {
            return OptionDef{name, OptionType::Number, def, -2, 5, {}, what + "; negative blurs", false};
        };
        t.push_back({"unsharp", "FFmpeg's unsharp: in + amount x (in - binomial blur), per luma and chroma; exact, or FFmpeg's bytes (arithmetic=ffmpeg)",
                     {size("luma_msize_x", "luma window width"), size("luma_msize_y", "luma window height"),
                      amount("luma_amount", "1", "luma strength"), size("chroma_msize_x", "chroma window width"),
                      size("chroma_msize_y", "chroma window height"), amount("chroma_amount", "0", "chroma strength"),
                      size("alpha_msize_x", "alpha window width (no alpha here: unused)"),
                      size("alpha_msize_y", "alpha window height (unused)"), amount("alpha_amount", "0", "alpha strength (unused)"),
                      {"border", OptionType::Choice, "replicate", 0, 0, {"mirror", "replicate", "zero"},
                       "what pixels outside the picture read as (FFmpeg's unsharp repeats the edge)", false},
                      arithmetic_option("rounds the exact result once",
                                        "FFmpeg 5.1's fixed point: a rounded blur, the difference times amount floored; "
                                        "above 8 bits 1/256 of the effect")},
                     build_unsharp});
        t.back().positions = {"luma_msize_x", "luma_msize_y", "luma_amount", "chroma_msize_x", "chroma_msize_y",
                              "chroma_amount", "alpha_msize_x", "alpha_msize_y", "alpha_amount"};
        t.back().aliases = {{"lx", "luma_msize_x"},   {"ly", "luma_msize_y"},   {"la", "luma_amount"},
                            {"cx", "chroma_msize_x"}, {"cy", "chroma_msize_y"}, {"ca", "chroma_amount"},
                            {"ax", "alpha_msize_x"},  {"ay", "alpha_msize_y"},  {"aa", "alpha_amount"}};
        // FFmpeg's fixed point: --compat ffmpeg gives its bytes.
        t.back().ffmpeg_defaults = {{"arithmetic", "ffmpeg"}};
    }
    {
        auto radius = [](const std::string& name, const std::string& def, const std::string& what) {
            return OptionDef{name, OptionType::Expression, def, 0, 0, {}, what + ": an expression of w, h, cw, ch, hsub, vsub", false};
        };
        auto power = [](const std::string& name, const std::string& def, double min, const std::string& what) {
            return OptionDef{name, OptionType::Integer, def, min, 63, {}, what, false};
        };
        t.push_back({"boxblur", "FFmpeg's boxblur: power passes of a box, per luma and chroma; exact, or FFmpeg's bytes (arithmetic=ffmpeg)",
                     {radius("luma_radius", "2", "luma box radius"), power("luma_power", "2", 0, "luma passes"),
                      radius("chroma_radius", "", "chroma box radius (default: luma's)"),
                      power("chroma_power", "-1", -1, "chroma passes; -1 = luma's"),
                      radius("alpha_radius", "", "alpha box radius (no alpha here: checked, unused)"),
                      power("alpha_power", "-1", -1, "alpha passes (unused)"),
                      {"border", OptionType::Choice, "mirror", 0, 0, {"mirror", "replicate", "zero", "reflect"},
                       "what pixels outside the picture read as: mirror (dcb|abcd|cba), replicate, zero, or reflect "
                       "(cba|abcd|dcb, FFmpeg's; with arithmetic=ffmpeg)", false},
                      arithmetic_option("one rounding of the exact result",
                                        "FFmpeg 5.1's 16-bit fixed point, rounded after every pass")},
                     build_boxblur});
        t.back().positions = {"luma_radius", "luma_power", "chroma_radius", "chroma_power", "alpha_radius", "alpha_power"};
        // FFmpeg's edge and its rounding after every pass: --compat ffmpeg gives its bytes.
        t.back().ffmpeg_defaults = {{"border", "reflect"}, {"arithmetic", "ffmpeg"}};
        t.back().aliases = {{"lr", "luma_radius"},   {"lp", "luma_power"}, {"cr", "chroma_radius"},
                            {"cp", "chroma_power"}, {"ar", "alpha_radius"}, {"ap", "alpha_power"}};
    }
}

// Fixed kernels (box, sharpen, emboss) and FFmpeg's convolution of any matrix.
void add_kernel_filters(std::vector<FilterDef>& t) {
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
                 {{"m", OptionType::Matrix, "", 0, 0, {}, "coefficients, row by row, separated by spaces or |", true},
                  {"file", OptionType::Text, "", 0, 0, {}, "read the matrix from a text file, one row per line", true},
                  {"rdiv", OptionType::Number, "0", 0, 1e9, {}, "multiply the sum by this; 0 = 1/sum of coefficients", true},
                  {"bias", OptionType::Number, "0", -1e9, 1e9, {}, "then add this", true},
                  {"mode", OptionType::Choice, "square", 0, 0, {"square", "row", "column"}, "how m= is shaped", true},
                  ffmpeg_border_option()},
                 build_convolution});
    // FFmpeg 5.1's edge for 3x3 matrices: --compat ffmpeg gives its bytes on the last row and column too.
    t.back().ffmpeg_defaults = {{"border", "ffmpeg"}};
    // FFmpeg's order: 0m..3m, 0rdiv..3rdiv, 0bias..3bias, 0mode..3mode (plane 3 is alpha, which
    // vfilter's formats do not have: accepted and unused, as FFmpeg does on formats without it).
    for (const char* name : {"m", "rdiv", "bias", "mode"})
        for (int plane = 0; plane < 4; ++plane) t.back().positions.push_back(std::to_string(plane) + name);
}

std::vector<FilterDef> make_table() {
    std::vector<FilterDef> t;
    t.push_back({"identity", "pass frames through unchanged (measures the pipeline itself)", {}, build_identity});
    add_gradient_filters(t);
    add_gaussian_and_mean_blurs(t);
    add_luma_chroma_blurs(t);
    add_kernel_filters(t);
    return t;
}


// The table's defaults read as their types once, so planning reads no text.
std::vector<FilterDef> with_typed_defaults(std::vector<FilterDef> table) {
    for (FilterDef& f : table) {
        for (const OptionDef& d : f.options)
            if (!d.default_value.empty() && !d.per_plane)
                f.typed_defaults.emplace_back(d.name, read_option_value(f.name, d.name, d, d.default_value));
        for (const auto& [name, value] : f.ffmpeg_defaults)
            for (const OptionDef& d : f.options)
                if (d.name == name) f.typed_ffmpeg_defaults.emplace_back(name, read_option_value(f.name, name, d, value));
    }
    return table;
}

}  // namespace

const OptionValue* OptionValues::find(const std::string& name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? nullptr : it->second;
}

const std::string& OptionValues::text(const std::string& name) const {
    static const std::string empty;
    const OptionValue* v = find(name);
    const std::string* t = v ? std::get_if<std::string>(v) : nullptr;
    return t ? *t : empty;
}

double OptionValues::number(const std::string& name) const {
    const OptionValue* v = find(name);
    const double* d = v ? std::get_if<double>(v) : nullptr;
    return d ? *d : 0.0;
}

const NumberExpr& OptionValues::expression(const std::string& name) const {
    static const NumberExpr none;
    const OptionValue* v = find(name);
    const NumberExpr* e = v ? std::get_if<NumberExpr>(v) : nullptr;
    return e ? *e : none;
}

const std::vector<FilterDef>& filter_table() {
    static const std::vector<FilterDef> table = with_typed_defaults(make_table());
    return table;
}

const FilterDef* find_filter(const std::string& name) {
    for (const auto& f : filter_table())
        if (f.name == name) return &f;
    return nullptr;
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
                out << " [" << format_number(o.min) << ".." << format_number(o.max) << "]";
            }
            if (!o.default_value.empty()) out << " (default " << o.default_value << ")";
            out << "\n";
        }
    }
    return out.str();
}

}  // namespace vf
