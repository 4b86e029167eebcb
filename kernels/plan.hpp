// A compiled filter: for each channel (Y, U, V) the one operation to apply to it.
// config/ builds plans from filter specs; every backend (CPU reference, CPU fast path, CUDA)
// executes the same plan, so they can be tested against each other.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/border.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

// out = clamp((int)((float)sum * rdiv + bias + 0.5f), 0, peak), sum = sum over taps of k * pixel.
// The rounding is FFmpeg's convolution filter's, so equal options give equal output.
// With a divisor (whole-number taps only): out = clamp(floor(sum / divisor), 0, peak) in integers,
// FFmpeg's avgblur, which truncates its means (finish_floor in kernels/reference.hpp).
struct ConvolveOp {
    int kw = 1;                 // odd
    int kh = 1;                 // odd
    std::vector<double> k;      // kh rows of kw coefficients, row-major
    float rdiv = 1.0f;
    float bias = 0.0f;
    int divisor = 0;            // > 0: the sum divided by it, rounded down; rdiv and bias unused
    bool integer = true;        // every coefficient is a whole number: sums are exact
    // k == col (outer) row, exactly, with whole numbers; empty when k has no such factorisation.
    std::vector<int> row, col;
    // A hash of kw, kh and k, so per-kernel state (uploaded taps, FFT plans) is found without
    // copying the coefficients on every call.
    uint64_t fingerprint = 0;

    bool separable() const { return !row.empty(); }
    int rx() const { return kw / 2; }
    int ry() const { return kh / 2; }
};

// out = clamp((int)(sqrtf(a*a + b*b) * scale + delta)), a = sum(gx * p) / divisor, b likewise.
// Sobel, Prewitt and Scharr as FFmpeg computes them; gy all zero gives |a| (laplacian).
// A compass gradient (Kirsch) instead takes the largest of the sums of gx turned to each of its 8
// directions (gy and the divisor are unused): out = clamp((int)(|max| * scale + delta)), as
// FFmpeg's kirsch, turns included (kCompassOrder).
struct GradientOp {
    std::array<int, 9> gx{};
    std::array<int, 9> gy{};
    float divisor = 1.0f;
    float scale = 1.0f;
    float delta = 0.0f;
    bool compass = false;
};

// The 8 outer taps of a 3x3 kernel (index = row * 3 + column) in the order a turn moves them
// along, one place a turn. FFmpeg's kirsch moves them in reading order (the classic Kirsch moves
// them round the centre, 0 1 2 5 8 7 6 3); vfilter's kirsch is FFmpeg's, so its output is too.
inline constexpr int kCompassOrder[8] = {0, 1, 2, 3, 5, 6, 7, 8};

// gx turned `turn` steps round the centre (the centre tap stays).
inline std::array<int, 9> compass_turn(const std::array<int, 9>& gx, int turn) {
    std::array<int, 9> k{};
    k[4] = gx[4];
    for (int i = 0; i < 8; ++i) k[kCompassOrder[(i + turn) % 8]] = gx[kCompassOrder[i]];
    return k;
}

// FFmpeg 5.1's boxblur, its own arithmetic (libavfilter/vf_boxblur.c): `power` passes of a
// (2 radius + 1) box along every row, then as many down every column. Each pass stores
// (sum * inv + 2^15) >> 16, inv = (2^16 + len / 2) / len, as FFmpeg's 32-bit int computes it, in
// the sample's type (8 or 16 bits), so rounding happens after every pass (kernels/ffmpeg_arith.hpp).
// FFmpeg's edge is Border::Reflect.
struct BoxPassesOp {
    int radius = 1;
    int power = 1;
};

// FFmpeg 5.1's unsharp, its own fixed point (libavfilter/vf_unsharp.c): the binomial blur of an
// (2 steps_x + 1) x (2 steps_y + 1) window summed in 32 bits and rounded, then
// out = in + (((in - blur) * amount) >> shift), amount = the option times 65536 (truncated),
// shift 16 on 8-bit samples and 24 above (FFmpeg 5.1's 16-bit path: 1/256 of the documented
// effect), clipped to the sample type's range (kernels/ffmpeg_arith.hpp).
struct UnsharpFixedOp {
    int steps_x = 1;
    int steps_y = 1;
    int amount = 0;
};

enum class OpKind { Copy, Fill, Convolve, Gradient, BoxPasses, UnsharpFixed };

struct PlaneOp {
    OpKind kind = OpKind::Copy;
    Border border = Border::Mirror;
    ConvolveOp conv;       // OpKind::Convolve
    GradientOp grad;       // OpKind::Gradient
    BoxPassesOp box;       // OpKind::BoxPasses
    UnsharpFixedOp unsharp;  // OpKind::UnsharpFixed
    // OpKind::Fill writes the neutral value 1 << (depth - 1) (grey chroma).
};

constexpr int kMaxChannels = 3;     // Y, U, V (gray has one)
constexpr int kMaxKernelSize = 127; // largest kernel side accepted

// Where a frame is, as FFmpeg's timeline editing (enable=) sees it: t its time in seconds from the
// input's start (NAN: unknown), n its number from 0, pos its byte offset in the input (NAN:
// unknown), w and h its size.
struct FrameMoment {
    double t = NAN, n = 0, pos = NAN, w = 0, h = 0;
};

// Whether a filter applies to the frame at a moment; made where the chain is planned.
using TimelineCondition = std::function<bool(const FrameMoment&)>;

struct FilterPlan {
    std::string description;                 // e.g. "gaussian sigma=3.2 size=27"
    std::array<PlaneOp, kMaxChannels> ops{};
    // enable=: the frames this filter applies to; the others pass it unchanged. Unset: every frame.
    std::shared_ptr<const TimelineCondition> enable;

    bool applies_to(const FrameMoment& m) const { return !enable || (*enable)(m); }

    bool is_identity() const {
        for (const auto& op : ops)
            if (op.kind != OpKind::Copy) return false;
        return true;
    }
};

// Whether two operations compute the same thing (every field that reaches a kernel is equal), so
// planes of both may share one batched launch.
bool same_operation(const PlaneOp& a, const PlaneOp& b);
bool same_chain(const std::vector<FilterPlan>& a, const std::vector<FilterPlan>& b);
// A hash of what same_chain compares: equal chains hash equal.
uint64_t chain_fingerprint(const std::vector<FilterPlan>& chain);

// Finds whole-number vectors col, row with k == col (outer) row exactly. Returns false when the
// kernel has rank > 1 or is not made of whole numbers.
bool factor_rank1(const ConvolveOp& op, std::vector<int>& col, std::vector<int>& row);

// Fills in `integer`, `row` and `col` from `k`. Call after setting k, kw, kh.
void finalize_convolve(ConvolveOp& op);

// Why the tensor-core path cannot compute `op` exactly on samples up to `peak`, or "" when it
// can: it needs whole-number taps within +-2048 (exact in half precision) whose sums stay below
// 2^24 (exact in FP32).
std::string tensor_taps_problem(const ConvolveOp& op, int peak);

// Why a GPU family forced with --kernel cannot run this chain, or "" when it can: `separable`
// needs rank-1 kernels, `tensor` what tensor_taps_problem asks (here for 8-bit samples; deeper ones
// are checked per plane). Checked before anything is opened, so a wrong choice costs nothing.
std::string forced_kernel_problem(const std::vector<FilterPlan>& chain, const KernelChoice& choice);

}  // namespace vf
