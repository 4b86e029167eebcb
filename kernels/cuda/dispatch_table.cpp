// The dispatch table: every CUDA variant, one row each, in the order `auto` reads them. Each row
// says what the variant can compute (takes: a property of the operation and the planes' layout),
// when `auto` prefers it (a policy, with the benchmark row of docs/benchmarks.md that justifies
// it), what it makes when an operation is prepared, and how it launches (one pair of planes, or a
// batch). The variants themselves live in the files variants.hpp names; nothing else chooses among
// them.
#include "kernels/cuda/dispatch_table.hpp"

#include <optional>
#include <sstream>

#include "common/error.hpp"

namespace vf::cuda {
namespace {

// --- the policy's thresholds, one a line ---------------------------------------------------------
// Dense kernels from 7x7 (49 taps) are timed between the direct sums and the tensor cores, which
// give the same bytes: below it the direct rows win every benchmark row (GPU kernels: dense 3x3,
// 5x5); from it the winner depends on the taps, the plane and the GPU (dense 7x7 and 13x13 go
// direct or to the tensor cores by size).
constexpr int kTimedFromTaps = 7 * 7;
// A 5x5 with byte taps takes the DP4A strip from 4 Mpx: faster than the tile at 4K, slower at
// 1080p (GPU kernels: dense 5x5; strip16-dp4a takes aligned planes before either).
constexpr long long kDp4aFiveByFiveMinPixels = 4'000'000;

// Convolutions finished by rdiv and bias (FFmpeg's convolution rounding): every convolution row
// takes these. Truncated means (a divisor: FFmpeg's avgblur) only the box rows compute.
bool is_convolve(const PlaneOp& op) { return op.kind == OpKind::Convolve && op.conv.divisor == 0; }
bool is_box_op(const PlaneOp& op) { return op.kind == OpKind::Convolve && is_box(op.conv); }
// Sobel-like gradients (two sums and a magnitude); compass ones (Kirsch) have a row of their own.
bool is_gradient(const PlaneOp& op) { return op.kind == OpKind::Gradient && !op.grad.compass; }
bool is_compass(const PlaneOp& op) { return op.kind == OpKind::Gradient && op.grad.compass; }

using Op = const PlaneOp&;
using L = const Launch&;
using S = const RowState*;
using B = const BatchLaunch&;
using Ctx = DeviceContext&;

const std::vector<Variant> kTable = {
    {"copy", KernelFamily::Copy, "copy operations (a plane the filter leaves as it is)", "always",
     [](Op op, L) { return op.kind == OpKind::Copy; }, nullptr, nullptr,
     [](Op, S, L l) { copy_plane(l); },
     [](Op, S, B b) { copy_plane_batch(b); }},
    {"fill", KernelFamily::Fill, "fill operations (grey chroma)", "always",
     [](Op op, L) { return op.kind == OpKind::Fill; }, nullptr, nullptr,
     [](Op, S, L l) { fill_neutral(l); },
     [](Op, S, B b) { fill_neutral_batch(b); }},

    // FFmpeg 5.1's own arithmetic for boxblur and unsharp (arithmetic=ffmpeg, the default under
    // --compat ffmpeg): its bytes, one thread an output (variants/box_passes.cu, unsharp_fixed.cu).
    {"box-passes", KernelFamily::Ffmpeg, "FFmpeg's boxblur arithmetic (a rounding after every pass) on any plane",
     "the only row for it", [](Op op, L) { return op.kind == OpKind::BoxPasses; }, nullptr, nullptr,
     [](Op op, S, L l) { box_passes(op.box, l); }, nullptr},
    {"unsharp-fixed", KernelFamily::Ffmpeg, "FFmpeg's unsharp fixed point on any plane", "the only row for it",
     [](Op op, L) { return op.kind == OpKind::UnsharpFixed; }, nullptr, nullptr,
     [](Op op, S, L l) { unsharp_fixed(op.unsharp, l); }, nullptr},

    // Kirsch: 8 turned sums, the largest kept (variants/compass_tile.cu).
    {"compass-tile", KernelFamily::Gradient, "compass gradients (kirsch) on any plane", "the only row for them",
     [](Op op, L) { return is_compass(op); }, nullptr, nullptr,
     [](Op op, S, L l) { compass_tile(op.grad, l); }, nullptr},
    // Sobel, Prewitt, Scharr, Laplacian magnitude (variants/gradient_*.cu).
    {"gradient-strip16", KernelFamily::Gradient,
     "gradients on 8-bit planes with 16-byte aligned rows whose divisor, scale and delta have an integer form",
     "always where it takes the plane (GPU kernels: sobel, 1080p and 4K)",
     [](Op op, L l) { return is_gradient(op) && gradient_strip16_takes(op.grad, l); }, nullptr, nullptr,
     [](Op op, S, L l) { gradient_strip16(op.grad, l); },
     [](Op op, S, B b) { gradient_strip16_batch(op.grad, b); }},
    {"gradient-dp4a", KernelFamily::Gradient, "gradients with byte taps on 8-bit planar planes, rows 4-byte aligned",
     "where gradient-strip16 does not take the plane: DP4A sums beat FP32 ones on 8-bit samples",
     [](Op op, L l) { return is_gradient(op) && gradient_dp4a_takes(op.grad, l); }, nullptr, nullptr,
     [](Op op, S, L l) { gradient_dp4a(op.grad, l); }, nullptr},
    {"gradient-strip", KernelFamily::Gradient, "gradients on planar planes with 4-byte aligned rows (10-bit too)",
     "no shared memory: faster than the tile where the rows allow it",
     [](Op op, L l) { return is_gradient(op) && gradient_strip_takes(op.grad, l); }, nullptr, nullptr,
     [](Op op, S, L l) { gradient_strip(op.grad, l); }, nullptr},
    {"gradient-tile", KernelFamily::Gradient, "gradients on any plane (interleaved chroma, odd pitches)", "the fallback",
     [](Op op, L) { return is_gradient(op); }, nullptr, nullptr,
     [](Op op, S, L l) { gradient_tile(op.grad, l); }, nullptr},

    // Box filters (every tap equal): running sums, O(1) work a pixel whatever the size (device/box_sums.cuh).
    {"box-staged", KernelFamily::Box,
     "box filters on 8-bit planar planes with 16-byte aligned rows (FFmpeg's avgblur's truncated means too)",
     "always where it takes the plane (GPU kernels: box 63x63)",
     [](Op op, L l) { return is_box_op(op) && box_staged_takes(op.conv, l); }, nullptr,
     [](Op, L, Ctx ctx) { return box_staged_prepare(ctx); },
     [](Op op, S, L l) { box_staged(op.conv, l); }, nullptr},
    {"box-walk", KernelFamily::Box, "box filters on any plane (FFmpeg's avgblur's truncated means too)",
     "where box-staged does not take the plane",
     [](Op op, L) { return is_box_op(op); }, nullptr, nullptr,
     [](Op op, S, L l) { box_walk(op.conv, l); }, nullptr},

    // Other rank-1 kernels (Gaussians, custom separable matrices): separable_*.cu.
    {"separable-imma", KernelFamily::Separable,
     "rank-1 kernels up to 81 wide whose row taps are all 0..255 or all -128..127, on 8-bit planar planes "
     "with 16-byte aligned rows",
     "always where it takes the plane (GPU kernels: gaussian s=3.2)",
     [](Op op, L l) { return is_convolve(op) && op.conv.separable() && separable_imma_eligible(op.conv, l.src, l.dst); },
     nullptr, [](Op op, L l, Ctx ctx) { return separable_imma_prepare(op.conv, l, ctx); },
     [](Op op, S s, L l) { separable_imma(op.conv, s, l); }, nullptr},
    {"separable-f32", KernelFamily::Separable, "rank-1 kernels on any plane", "where separable-imma does not take the plane",
     [](Op op, L) { return is_convolve(op) && op.conv.separable(); }, nullptr,
     [](Op op, L, Ctx ctx) { return separable_f32_prepare(op.conv, ctx); },
     [](Op op, S s, L l) { conv_separable_f32(op.conv, s, l); }, nullptr},

    // Dense kernels, direct sums. From 7x7 the first of these that takes the kernel is timed against
    // the tensor rows (they take rank-1 kernels too, when forced; auto never gets here with one:
    // the rows above take them all).
    {"small-tile-f64", KernelFamily::Direct, "3x3, 5x5 and 7x7 kernels whose taps are not whole numbers",
     "always for those (double sums: the only exact direct path for them)",
     [](Op op, L l) { return is_convolve(op) && small_tile_f64_takes(op.conv, l); }, nullptr, nullptr,
     [](Op op, S, L l) { small_tile_f64(op.conv, l); }, nullptr},
    {"strip16-dp4a", KernelFamily::Direct,
     "square whole-number kernels from 3x3 to 15x15 with byte taps and an integer finish, on 8-bit planes with "
     "16-byte aligned rows",
     "always below 7x7, timed from it (GPU kernels: dense 3x3, 5x5, 7x7)",
     [](Op op, L l) { return is_convolve(op) && strip16_dp4a_takes(op.conv, l); }, nullptr,
     [](Op op, L l, Ctx) { return strip16_dp4a_prepare(op.conv, l); },
     [](Op op, S s, L l) { strip16_dp4a(op.conv, s, l); },
     [](Op op, S s, B b) { strip16_dp4a_batch(op.conv, s, b); }},
    {"strip-dp4a", KernelFamily::Direct, "3x3 and 5x5 kernels with byte taps on 8-bit planar planes, rows 4-byte aligned",
     "3x3 always; 5x5 from 4 Mpx (the tile is faster below)",
     [](Op op, L l) { return is_convolve(op) && strip_dp4a_takes(op.conv, l); },
     [](Op op, L l) {
         return op.conv.kw == 3 || static_cast<long long>(l.dst.width) * l.dst.height >= kDp4aFiveByFiveMinPixels;
     },
     nullptr, [](Op op, S, L l) { strip_dp4a(op.conv, l); }, nullptr},
    {"strip-f32", KernelFamily::Direct, "3x3 whole-number kernels on planar planes with 4-byte aligned rows (10-bit too)",
     "always where it takes the plane: no shared memory, faster than the tile",
     [](Op op, L l) { return is_convolve(op) && strip_f32_takes(op.conv, l); }, nullptr, nullptr,
     [](Op op, S, L l) { strip_f32(op.conv, l); }, nullptr},
    {"small-tile", KernelFamily::Direct, "3x3, 5x5 and 7x7 whole-number kernels on any plane",
     "the fallback for those sizes (unrolled at compile time)",
     [](Op op, L l) { return is_convolve(op) && small_tile_takes(op.conv, l); }, nullptr, nullptr,
     [](Op op, S, L l) { small_tile(op.conv, l); }, nullptr},
    {"tile-f64", KernelFamily::Direct, "kernels up to 127x127 whose taps are not whole numbers", "the fallback for those",
     [](Op op, L) { return is_convolve(op) && !op.conv.integer; }, nullptr,
     [](Op op, L, Ctx ctx) { return tile_f64_prepare(op.conv, ctx); },
     [](Op op, S s, L l) { tile_f64(op.conv, s, l); }, nullptr},
    {"tile", KernelFamily::Direct, "whole-number kernels up to 127x127", "the fallback for those",
     [](Op op, L) { return is_convolve(op) && op.conv.integer; }, nullptr,
     [](Op op, L, Ctx ctx) { return tile_prepare(op.conv, ctx); },
     [](Op op, S s, L l) { tile(op.conv, s, l); }, nullptr},

    // Dense kernels on the tensor cores (exact: the same bytes as the direct rows).
    {"imma", KernelFamily::Tensor,
     "whole-number kernels with byte taps on 8-bit planar planes with 16-byte aligned rows (integer products, "
     "exact)",
     "timed against the direct rows from 7x7 (GPU kernels: dense 13x13, 27x27, 63x63)",
     [](Op op, L l) { return is_convolve(op) && imma_eligible(op.conv, l); }, nullptr,
     [](Op op, L l, Ctx ctx) { return imma_prepare(op.conv, l, ctx); },
     [](Op op, S s, L l) { conv_imma(op.conv, s, l); }, nullptr},
    {"tensor-half", KernelFamily::Tensor,
     "whole-number kernels whose sums stay exact in FP32, any depth and layout (half-precision products)",
     "timed against the direct rows from 7x7 where imma does not take the plane (10-bit, unaligned rows; GPU "
     "kernels: dense 13x13 and 27x27 10-bit)",
     [](Op op, L l) { return is_convolve(op) && tensor_eligible(op.conv, l.src); }, nullptr,
     [](Op op, L l, Ctx ctx) { return tensor_half_prepare(op.conv, l, ctx); },
     [](Op op, S s, L l) { conv_tensor_half(op.conv, s, l); }, nullptr},

    // Whole-plane FFT through cuFFT: within 1 of the exact sum, so `auto` never times it against the
    // exact rows (the same input would give other bytes on another run or GPU); it runs it only
    // where no exact row above takes the operation, and none does today (tile and tile-f64 take
    // every kernel vfilter accepts). `--kernel fft` forces it.
    {"fft", KernelFamily::Fft, "any convolution (within 1 of the exact sum: FFT rounding)",
     "only where no exact row takes the operation (none today); forced with --kernel fft",
     [](Op op, L) { return is_convolve(op); }, nullptr,
     [](Op op, L l, Ctx) { return fft_prepare(op.conv, l); },
     [](Op op, S s, L l) { conv_fft(op.conv, s, l); }, nullptr},

    // The first steps of refinement, kept to show what each step buys (benchmark only).
    {"constant", KernelFamily::Constant, "any convolution (taps in constant memory, no tile)", "never",
     [](Op op, L) { return is_convolve(op); }, [](Op, L) { return false; },
     [](Op op, L, Ctx ctx) { return constant_prepare(op.conv, ctx); },
     [](Op op, S s, L l) { conv_constant(op.conv, s, l); }, nullptr},
    {"naive", KernelFamily::Naive, "any convolution (taps in global memory, no tile)", "never",
     [](Op op, L) { return is_convolve(op); }, [](Op, L) { return false; },
     [](Op op, L, Ctx ctx) { return naive_prepare(op.conv, ctx); },
     [](Op op, S s, L l) { conv_naive(op.conv, s, l); }, nullptr},
};

bool auto_takes(const Variant& v, const PlaneOp& op, const Launch& l) {
    return v.takes(op, l) && (!v.preferred || v.preferred(op, l));
}

// The first row of `family` that auto would run, or nullptr.
const Variant* first_preferred(KernelFamily family, const PlaneOp& op, const Launch& l) {
    for (const Variant& v : kTable)
        if (v.family == family && auto_takes(v, op, l)) return &v;
    return nullptr;
}

// A forced row applies to the operations of its own kind (a gradient row to gradients, the others
// to convolutions); the rest of a chain (the chroma planes' copies and fills, a Sobel after a
// forced blur) runs what `auto` picks, as a forced family does.
bool serves(const Variant& v, const PlaneOp& op) {
    switch (v.family) {
    case KernelFamily::Copy: return op.kind == OpKind::Copy;
    case KernelFamily::Fill: return op.kind == OpKind::Fill;
    case KernelFamily::Gradient: return op.kind == OpKind::Gradient;
    case KernelFamily::Ffmpeg: return op.kind == OpKind::BoxPasses || op.kind == OpKind::UnsharpFixed;
    default: return op.kind == OpKind::Convolve;
    }
}

const Variant& forced_family(KernelFamily family, const PlaneOp& op, const Launch& l) {
    if (family == KernelFamily::Separable) {
        if (!op.conv.separable())
            throw Error(ErrorCategory::Usage, "--kernel separable: this filter's matrix is not separable (rank > 1)");
        return first_of_family(is_box(op.conv) ? KernelFamily::Box : KernelFamily::Separable, op, l);
    }
    return first_of_family(family, op, l);
}

}  // namespace

const std::vector<Variant>& dispatch_table() { return kTable; }

const Variant& choose_variant(const PlaneOp& op, const Launch& l, const FastestOf& fastest) {
    for (const Variant& v : kTable) {
        if (!auto_takes(v, op, l)) continue;
        if (v.family == KernelFamily::Direct && op.conv.kw * op.conv.kh >= kTimedFromTaps) {
            // The exact rows that compete for dense kernels: the first of the direct and of the
            // tensor family that take it. They give the same bytes, so the time decides alone.
            std::vector<const Variant*> candidates{&v};
            if (const Variant* t = first_preferred(KernelFamily::Tensor, op, l)) candidates.push_back(t);
            if (candidates.size() > 1 && fastest) return *candidates.at(fastest(candidates));
        }
        return v;
    }
    throw Error(ErrorCategory::Internal, "the dispatch table has no row for this operation");
}

const Variant& first_of_family(KernelFamily family, const PlaneOp& op, const Launch& l) {
    if (const Variant* v = first_preferred(family, op, l)) return *v;
    for (const Variant& v : kTable)
        if (v.family == family && v.takes(op, l)) return v;
    std::string rows;
    for (const Variant& v : kTable)
        if (v.family == family) rows += std::string(rows.empty() ? "" : "; ") + v.name + ": " + v.takes_text;
    throw Error(ErrorCategory::Usage, std::string("--kernel ") + kernel_family_name(family) +
                                          ": no variant takes this filter on this plane (" + rows + ")");
}

const Variant& choose_row(const PlaneOp& op, const Launch& l, const KernelChoice& choice, const FastestOf& fastest) {
    if (choice.row >= 0) {
        const Variant& forced = kTable.at(static_cast<size_t>(choice.row));
        if (serves(forced, op)) {
            if (!forced.takes(op, l))
                throw Error(ErrorCategory::Usage, std::string("--kernel ") + forced.name +
                                                      " does not take this filter on this plane; it takes " + forced.takes_text);
            return forced;
        }
        return choose_variant(op, l, fastest);
    }
    // Copies, fills and gradients have their own rows whatever family was asked for.
    if (choice.family && op.kind == OpKind::Convolve) return forced_family(*choice.family, op, l);
    return choose_variant(op, l, fastest);
}

bool row_takes(const Variant& v, const PlaneOp& op, const PlaneView& src, const PlaneView& dst) {
    std::optional<FixedFinish> finish;
    if (op.kind == OpKind::Convolve) finish = byte_tap_finish(op.conv);
    return v.takes(op, Launch{src, dst, op.border, nullptr, nullptr, finish ? &*finish : nullptr});
}

std::string describe_dispatch_table() {
    std::ostringstream s;
    s << "| row | family | takes | auto runs it | batches |\n|---|---|---|---|---|\n";
    for (const Variant& v : kTable)
        s << "| `" << v.name << "` | " << kernel_family_name(v.family) << " | " << v.takes_text << " | " << v.auto_text << " | "
          << (v.launch_batch ? "one launch a batch" : "one launch a frame") << " |\n";
    return s.str();
}

}  // namespace vf::cuda
