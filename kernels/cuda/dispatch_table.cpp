// The dispatch table: every CUDA variant, one row each, in the order `auto` reads them. Each row
// says what the variant can compute (takes: a property of the operation and the planes) and when
// `auto` prefers it (a policy, with the benchmark row of docs/benchmarks.md that justifies it).
// The variants themselves live in the files conv_kernels.hpp names; nothing else chooses among them.
#include "kernels/cuda/dispatch_table.hpp"

#include <memory>
#include <sstream>

#include "common/error.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/op_cache.hpp"

namespace vf::cuda {
namespace {

// --- the policy's thresholds, one a line ---------------------------------------------------------
// Dense kernels from 7x7 (49 taps) are timed against the tensor cores and the FFT: below it the
// direct rows win every benchmark row (GPU kernels: dense 3x3, 5x5); from it the winner depends on
// the taps, the plane and the GPU (dense 7x7 and 13x13 go direct or to the tensor cores by size).
constexpr int kTimedFromTaps = 7 * 7;
// The FFT joins the timing from 15x15: below it a direct or tensor row always won (dense 13x13).
constexpr int kFftFromTaps = 15 * 15;
// A 5x5 with byte taps takes the DP4A strip from 4 Mpx: measured 11% faster than the tile at 4K,
// 5% slower at 1080p (GPU kernels: dense 5x5, where strip16-dp4a now runs on aligned planes).
constexpr long long kDp4aFiveByFiveMinPixels = 4'000'000;

bool is_convolve(const PlaneOp& op) { return op.kind == OpKind::Convolve; }
// Sobel-like gradients (two sums and a magnitude); compass ones (Kirsch) have a row of their own.
bool is_gradient(const PlaneOp& op) { return op.kind == OpKind::Gradient && !op.grad.compass; }
bool is_compass(const PlaneOp& op) { return op.kind == OpKind::Gradient && op.grad.compass; }

const std::vector<Variant> kTable = {
    {"copy", Family::Copy, "copy operations (a plane the filter leaves as it is)", "always",
     [](const PlaneOp& op, const Launch&) { return op.kind == OpKind::Copy; }, nullptr,
     [](const PlaneOp&, const Launch& l) { copy_plane(l); }},
    {"fill", Family::Fill, "fill operations (grey chroma)", "always",
     [](const PlaneOp& op, const Launch&) { return op.kind == OpKind::Fill; }, nullptr,
     [](const PlaneOp&, const Launch& l) { fill_neutral(l); }},

    // Kirsch: 8 turned sums, the largest kept (variants/compass_tile.cu).
    {"compass-tile", Family::Gradient, "compass gradients (kirsch) on any plane", "the only row for them",
     [](const PlaneOp& op, const Launch&) { return is_compass(op); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { compass_tile(op.grad, l); }},
    // Sobel, Prewitt, Scharr, Laplacian magnitude (variants/gradient_*.cu).
    {"gradient-strip16", Family::Gradient,
     "gradients on 8-bit planes with 16-byte aligned rows whose divisor, scale and delta have an integer form",
     "always where it takes the plane (GPU kernels: sobel, 1080p and 4K)",
     [](const PlaneOp& op, const Launch& l) { return is_gradient(op) && gradient_strip16_takes(op.grad, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { gradient_strip16(op.grad, l); }},
    {"gradient-dp4a", Family::Gradient, "gradients with byte taps on 8-bit planar planes, rows 4-byte aligned",
     "where gradient-strip16 does not take the plane: DP4A sums beat FP32 ones on 8-bit samples",
     [](const PlaneOp& op, const Launch& l) { return is_gradient(op) && gradient_dp4a_takes(op.grad, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { gradient_dp4a(op.grad, l); }},
    {"gradient-strip", Family::Gradient, "gradients on planar planes with 4-byte aligned rows (10-bit too)",
     "no shared memory: faster than the tile where the rows allow it",
     [](const PlaneOp& op, const Launch& l) { return is_gradient(op) && gradient_strip_takes(op.grad, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { gradient_strip(op.grad, l); }},
    {"gradient-tile", Family::Gradient, "gradients on any plane (interleaved chroma, odd pitches)", "the fallback",
     [](const PlaneOp& op, const Launch&) { return is_gradient(op); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { gradient_tile(op.grad, l); }},

    // Box filters (every tap equal): running sums, O(1) work a pixel whatever the size (device/box_sums.cuh).
    {"box-staged", Family::Box, "box filters on 8-bit planar planes with 16-byte aligned rows",
     "always where it takes the plane (GPU kernels: box 63x63)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && box_staged_takes(op.conv, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { box_staged(op.conv, l); }},
    {"box-walk", Family::Box, "box filters on any plane", "where box-staged does not take the plane",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op) && is_box(op.conv); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { box_walk(op.conv, l); }},

    // Other rank-1 kernels (Gaussians, custom separable matrices): conv_separable*.cu.
    {"separable-imma", Family::Separable,
     "rank-1 kernels up to 81 wide whose row taps are all 0..255 or all -128..127, on 8-bit planar planes "
     "with 16-byte aligned rows",
     "always where it takes the plane (GPU kernels: gaussian s=3.2)",
     [](const PlaneOp& op, const Launch& l) {
         return is_convolve(op) && op.conv.separable() && separable_imma_eligible(op.conv, l.src, l.dst);
     },
     nullptr, [](const PlaneOp& op, const Launch& l) { try_separable_imma(op.conv, l); }},
    {"separable-f32", Family::Separable, "rank-1 kernels on any plane", "where separable-imma does not take the plane",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op) && op.conv.separable(); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { conv_separable_f32(op.conv, l); }},

    // Dense kernels, direct sums. From 7x7 the first of these that takes the
    // kernel is timed against the tensor and FFT rows. (They take rank-1 kernels too, when forced;
    // auto never gets here with one: the rows above take them all.)
    {"small-tile-f64", Family::Direct, "3x3, 5x5 and 7x7 kernels whose taps are not whole numbers",
     "always for those (double sums: the only exact direct path for them)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && small_tile_f64_takes(op.conv, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { small_tile_f64(op.conv, l); }},
    {"strip16-dp4a", Family::Direct,
     "square whole-number kernels from 3x3 to 15x15 with byte taps and an integer finish, on 8-bit planes with "
     "16-byte aligned rows",
     "always below 7x7, timed from it (GPU kernels: dense 3x3, 5x5, 7x7)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && strip16_dp4a_takes(op.conv, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { strip16_dp4a(op.conv, l); }},
    {"strip-dp4a", Family::Direct, "3x3 and 5x5 kernels with byte taps on 8-bit planar planes, rows 4-byte aligned",
     "3x3 always; 5x5 from 4 Mpx (the tile is faster below)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && strip_dp4a_takes(op.conv, l); },
     [](const PlaneOp& op, const Launch& l) {
         return op.conv.kw == 3 || static_cast<long long>(l.dst.width) * l.dst.height >= kDp4aFiveByFiveMinPixels;
     },
     [](const PlaneOp& op, const Launch& l) { strip_dp4a(op.conv, l); }},
    {"strip-f32", Family::Direct, "3x3 whole-number kernels on planar planes with 4-byte aligned rows (10-bit too)",
     "always where it takes the plane: no shared memory, faster than the tile",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && strip_f32_takes(op.conv, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { strip_f32(op.conv, l); }},
    {"small-tile", Family::Direct, "3x3, 5x5 and 7x7 whole-number kernels on any plane",
     "the fallback for those sizes (unrolled at compile time)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && small_tile_takes(op.conv, l); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { small_tile(op.conv, l); }},
    {"tile-f64", Family::Direct, "kernels up to 127x127 whose taps are not whole numbers", "the fallback for those",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op) && !op.conv.integer; }, nullptr,
     [](const PlaneOp& op, const Launch& l) { tile_f64(op.conv, l); }},
    {"tile", Family::Direct, "whole-number kernels up to 127x127", "the fallback for those",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op) && op.conv.integer; }, nullptr,
     [](const PlaneOp& op, const Launch& l) { tile(op.conv, l); }},

    // Dense kernels on the tensor cores.
    {"imma", Family::Tensor,
     "whole-number kernels with byte taps on 8-bit planar planes with 16-byte aligned rows (integer products, "
     "exact)",
     "timed from 7x7 (GPU kernels: dense 13x13, 27x27, 63x63)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && imma_eligible(op.conv, l.src, l.dst); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { try_conv_imma(op.conv, l); }},
    {"tensor-half", Family::Tensor,
     "whole-number kernels whose sums stay exact in FP32, any depth and layout (half-precision products)",
     "timed from 7x7 where imma does not take the plane (10-bit, unaligned rows; GPU kernels: dense 13x13 and 27x27 10-bit)",
     [](const PlaneOp& op, const Launch& l) { return is_convolve(op) && tensor_eligible(op.conv, l.src); }, nullptr,
     [](const PlaneOp& op, const Launch& l) { conv_tensor_half(op.conv, l); }},

    // Whole-plane FFT through cuFFT.
    {"fft", Family::Fft, "any convolution (within 1 of the exact sum: FFT rounding)",
     "timed from 15x15 (GPU kernels: dense 27x27 and 63x63, where imma won)",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op); },
     [](const PlaneOp& op, const Launch&) { return op.conv.kw * op.conv.kh >= kFftFromTaps; },
     [](const PlaneOp& op, const Launch& l) { conv_fft(op.conv, l); }},

    // The first steps of refinement, kept to show what each step buys (benchmark only).
    {"constant", Family::Constant, "any convolution (taps in constant memory, no tile)", "never",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op); }, [](const PlaneOp&, const Launch&) { return false; },
     [](const PlaneOp& op, const Launch& l) { conv_constant(op.conv, l); }},
    {"naive", Family::Naive, "any convolution (taps in global memory, no tile)", "never",
     [](const PlaneOp& op, const Launch&) { return is_convolve(op); }, [](const PlaneOp&, const Launch&) { return false; },
     [](const PlaneOp& op, const Launch& l) { conv_naive(op.conv, l); }},
};

const char* family_name(Family f) {
    switch (f) {
    case Family::Copy: return "copy";
    case Family::Fill: return "fill";
    case Family::Gradient: return "gradient";
    case Family::Box: return "box";
    case Family::Separable: return "separable";
    case Family::Direct: return "tiled";
    case Family::Tensor: return "tensor";
    case Family::Fft: return "fft";
    case Family::Naive: return "naive";
    case Family::Constant: return "constant";
    }
    return "?";
}

bool auto_takes(const Variant& v, const PlaneOp& op, const Launch& l) {
    return v.takes(op, l) && (!v.preferred || v.preferred(op, l));
}

// The first row of `family` that auto would run, or nullptr.
const Variant* first_preferred(Family family, const PlaneOp& op, const Launch& l) {
    for (const Variant& v : kTable)
        if (v.family == family && auto_takes(v, op, l)) return &v;
    return nullptr;
}

// Dense kernels from 7x7: the first preferred row of the direct, tensor and FFT families, each
// launched once untimed (plans, table uploads) and once timed, per kernel, plane size and peak
// sample (which decides whether the tensor rows are exact). The family is kept, not the row, so
// a plane of the same size with another layout takes its own first row of that family.
Family timed_family(const PlaneOp& op, const Launch& l) {
    static OpCache<Family> chosen;
    const uint64_t key = pack(l.src.width, l.src.height) ^ (static_cast<uint64_t>(l.src.peak()) * 0x9E3779B97F4A7C15ull);
    return chosen.get(op.conv, key, [&] {
        std::vector<std::pair<Family, const Variant*>> candidates;
        for (Family f : {Family::Direct, Family::Tensor, Family::Fft})
            if (const Variant* v = first_preferred(f, op, l)) candidates.emplace_back(f, v);
        if (candidates.size() == 1) return std::make_unique<Family>(candidates[0].first);
        Event a, b;
        float best_ms = 0;
        Family best = Family::Direct;
        for (const auto& [f, v] : candidates) {
            v->launch(op, l);
            a.record(l.stream);
            v->launch(op, l);
            b.record(l.stream);
            const float ms = b.since(a);
            if (f == Family::Direct || ms < best_ms) best_ms = ms, best = f;
        }
        return std::make_unique<Family>(best);
    });
}

}  // namespace

const std::vector<Variant>& dispatch_table() { return kTable; }

const Variant& choose_variant(const PlaneOp& op, const Launch& l) {
    for (const Variant& v : kTable) {
        if (!auto_takes(v, op, l)) continue;
        if (v.family == Family::Direct && op.conv.kw * op.conv.kh >= kTimedFromTaps) {
            const Family f = timed_family(op, l);
            if (const Variant* t = first_preferred(f, op, l)) return *t;
        }
        return v;
    }
    throw Error(ErrorCategory::Internal, "the dispatch table has no row for this operation");
}

const Variant& first_of_family(Family family, const PlaneOp& op, const Launch& l) {
    if (const Variant* v = first_preferred(family, op, l)) return *v;
    for (const Variant& v : kTable)
        if (v.family == family && v.takes(op, l)) return v;
    std::string rows;
    for (const Variant& v : kTable)
        if (v.family == family) rows += std::string(rows.empty() ? "" : "; ") + v.name + ": " + v.takes_text;
    throw Error(ErrorCategory::Usage, std::string("--kernel ") + family_name(family) + ": no variant takes this filter on this plane (" +
                                          rows + ")");
}

BatchLauncher batch_launcher(const Variant& v) {
    static const std::pair<const char*, BatchLauncher> kBatched[] = {
        {"copy", [](const PlaneOp&, const BatchLaunch& b) { copy_plane_batch(b); }},
        {"fill", [](const PlaneOp&, const BatchLaunch& b) { fill_neutral_batch(b); }},
        {"gradient-strip16", [](const PlaneOp& op, const BatchLaunch& b) { gradient_strip16_batch(op.grad, b); }},
        {"strip16-dp4a", [](const PlaneOp& op, const BatchLaunch& b) { strip16_dp4a_batch(op.conv, b); }},
    };
    for (const auto& [name, launcher] : kBatched)
        if (std::string(name) == v.name) return launcher;
    return nullptr;
}

const Variant* choose_batch_variant(const PlaneOp& op, const BatchLaunch& b) {
    const auto takes_all = [&](const Variant& v) {
        if (!batch_launcher(v)) return false;
        for (int i = 0; i < b.count; ++i)
            if (!v.takes(op, b.at(i))) return false;
        return true;
    };
    const Launch first_pair = b.at(0);
    const Variant& first = choose_variant(op, first_pair);
    if (takes_all(first)) return &first;
    for (const Variant& v : kTable)
        if (takes_all(v)) return &v;
    return nullptr;
}

std::string describe_dispatch_table() {
    std::ostringstream s;
    s << "| row | family | takes | auto runs it | batches |\n|---|---|---|---|---|\n";
    for (const Variant& v : kTable)
        s << "| `" << v.name << "` | " << family_name(v.family) << " | " << v.takes_text << " | " << v.auto_text << " | "
          << (batch_launcher(v) ? "one launch a batch" : "one launch a frame") << " |\n";
    return s.str();
}

}  // namespace vf::cuda
