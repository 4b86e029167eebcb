// The CUDA convolution variants, one file each (variants/<row>.cu, named after the dispatch table's
// row). A variant has up to three parts:
//   - takes: whether it can compute this operation on planes of this layout at all (a property of
//     the operation and the planes' shapes; called while preparing, on stand-in planes);
//   - prepare: what it needs on one device for one operation, made once and owned by the prepared
//     operation (taps in global or constant memory, tables, spectra, the raised shared-memory
//     limit), as a RowState of its own type;
//   - launch (and for some a batch launch): takes that state, launches on an explicit stream,
//     checks the launch and never synchronises.
// Which variant runs, and why, is decided in one place: dispatch_table.cpp. Helpers several
// variants share are in device/.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/plane.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/workspace.hpp"
#include "kernels/fixed_finish.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {

struct Launch {
    PlaneView src, dst;  // device memory, equal sizes
    Border border = Border::Mirror;
    cudaStream_t stream = nullptr;
    Workspace* workspace = nullptr;  // the stream's scratch (the FFT's); null where no row needs it
    // While preparing: the operation's integer finish on 8-bit samples, worked out once for all the
    // rows that use it (strip16-dp4a, imma); nullptr where its taps have none.
    const FixedFinish* byte_finish = nullptr;
};

// Several pairs of planes filtered by one operation: every plane of one size and layout (frames of
// several streams sharing a prepared chain). Rows with a batch launch do it in one launch per 16
// pairs (kMaxBatch).
struct BatchLaunch {
    const PlaneView* src;
    const PlaneView* dst;
    int count;
    Border border = Border::Mirror;
    cudaStream_t stream = nullptr;
    Workspace* workspace = nullptr;
    Launch at(int i) const { return Launch{src[i], dst[i], border, stream, workspace, nullptr}; }
};

// What a variant's prepare made for one operation on one device; each variant derives its own.
struct RowState {
    virtual ~RowState() = default;
    int64_t device_bytes = 0;  // GPU memory it holds, constant memory included (for /metrics)
};
using RowStatePtr = std::unique_ptr<RowState>;

template <typename S>
const S& state_as(const RowState* s) {
    return *static_cast<const S*>(s);
}

// Direct sums.
RowStatePtr naive_prepare(const ConvolveOp& op, DeviceContext& ctx);  // naive.cu: taps in global memory, no tiling
void conv_naive(const ConvolveOp& op, const RowState* s, const Launch& l);
RowStatePtr constant_prepare(const ConvolveOp& op, DeviceContext& ctx);  // constant.cu: taps in constant memory, no tiling
void conv_constant(const ConvolveOp& op, const RowState* s, const Launch& l);
RowStatePtr tile_prepare(const ConvolveOp& op, DeviceContext& ctx);  // tile.cu: shared-memory tile, register blocking
void tile(const ConvolveOp& op, const RowState* s, const Launch& l);  // (whole-number taps)
RowStatePtr tile_f64_prepare(const ConvolveOp& op, DeviceContext& ctx);  // tile_f64.cu: the same with double sums
void tile_f64(const ConvolveOp& op, const RowState* s, const Launch& l);  // (taps not whole numbers)
bool small_tile_takes(const ConvolveOp& op, const Launch& l);  // small_tile.cu: 3x3, 5x5, 7x7 with whole-number taps,
void small_tile(const ConvolveOp& op, const Launch& l);        // unrolled at compile time, 4 x 2 outputs a thread
bool small_tile_f64_takes(const ConvolveOp& op, const Launch& l);  // small_tile_f64.cu: 3x3, 5x5, 7x7, taps not whole numbers
void small_tile_f64(const ConvolveOp& op, const Launch& l);
bool strip_f32_takes(const ConvolveOp& op, const Launch& l);  // strip_f32.cu: 3x3, whole numbers, planar rows 4-byte aligned,
void strip_f32(const ConvolveOp& op, const Launch& l);        // no shared memory, 2 x 8 outputs a thread
bool strip_dp4a_takes(const ConvolveOp& op, const Launch& l);  // strip_dp4a.cu: 3x3 and 5x5 byte taps on 8-bit planes,
void strip_dp4a(const ConvolveOp& op, const Launch& l);        // strip-f32's shape with DP4A sums
// strip16_dp4a.cu: 3x3 to 15x15, byte taps, 8-bit, rows 16-byte aligned, an integer finish: 16
// outputs a thread.
bool strip16_dp4a_takes(const ConvolveOp& op, const Launch& l);
RowStatePtr strip16_dp4a_prepare(const ConvolveOp& op, const Launch& l);
void strip16_dp4a(const ConvolveOp& op, const RowState* s, const Launch& l);
void strip16_dp4a_batch(const ConvolveOp& op, const RowState* s, const BatchLaunch& b);
// separable_f32.cu: row pass + column pass fused in one kernel through shared memory, FP32.
RowStatePtr separable_f32_prepare(const ConvolveOp& op, DeviceContext& ctx);
void conv_separable_f32(const ConvolveOp& op, const RowState* s, const Launch& l);
// box_walk.cu, box_staged.cu: box filters (every tap equal, their product +-1) by running sums;
// box_staged stages the tile by cp.async (8-bit planar planes with 16-byte aligned rows),
// box_walk reads the plane.
bool is_box(const ConvolveOp& op);
bool box_staged_takes(const ConvolveOp& op, const Launch& l);
RowStatePtr box_staged_prepare(DeviceContext& ctx);
void box_staged(const ConvolveOp& op, const Launch& l);
void box_walk(const ConvolveOp& op, const Launch& l);
// separable_imma.cu: the row pass on the tensor cores' integer products: 8-bit planar planes
// with 16-byte aligned rows, row taps all 0..255 or all -128..127, up to 81 wide.
bool separable_imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why = nullptr);
RowStatePtr separable_imma_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx);
void separable_imma(const ConvolveOp& op, const RowState* s, const Launch& l);
// fft.cu: whole-plane FFT through cuFFT, for large dense kernels: the kernel's spectrum is made
// when prepared; plans and work buffers are the launching stream's (Launch::workspace).
RowStatePtr fft_prepare(const ConvolveOp& op, const Launch& l);
void conv_fft(const ConvolveOp& op, const RowState* s, const Launch& l);
// tensor_half.cu: whole-number dense kernels on the tensor cores (half-precision products, FP32
// sums, exact). tensor_eligible says whether it takes this kernel and plane, and why not.
bool tensor_eligible(const ConvolveOp& op, const PlaneView& src, std::string* why = nullptr);
RowStatePtr tensor_half_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx);
void conv_tensor_half(const ConvolveOp& op, const RowState* s, const Launch& l);
// imma.cu: whole-number kernels with byte taps (-128..127) on 8-bit planar planes with 16-byte
// aligned rows, on the tensor cores' integer products (byte samples, int32 sums, exact).
bool imma_eligible(const ConvolveOp& op, const Launch& l, std::string* why = nullptr);
RowStatePtr imma_prepare(const ConvolveOp& op, const Launch& l, DeviceContext& ctx);
void conv_imma(const ConvolveOp& op, const RowState* s, const Launch& l);
// gradient_strip16.cu, gradient_dp4a.cu, gradient_strip.cu, gradient_tile.cu: both 3x3
// gradients and the magnitude in one pass.
bool gradient_strip16_takes(const GradientOp& op, const Launch& l);  // 8-bit, rows 16-byte aligned, integer form
void gradient_strip16(const GradientOp& op, const Launch& l);
void gradient_strip16_batch(const GradientOp& op, const BatchLaunch& b);
bool gradient_dp4a_takes(const GradientOp& op, const Launch& l);  // 8-bit planar, rows 4-byte aligned, byte taps
void gradient_dp4a(const GradientOp& op, const Launch& l);
bool gradient_strip_takes(const GradientOp& op, const Launch& l);  // planar, rows 4-byte aligned
void gradient_strip(const GradientOp& op, const Launch& l);
void gradient_tile(const GradientOp& op, const Launch& l);  // any plane
// compass_tile.cu: Kirsch's 8 turned 3x3 sums, the largest kept; any plane.
void compass_tile(const GradientOp& op, const Launch& l);
// box_passes.cu, unsharp_fixed.cu: FFmpeg 5.1's own arithmetic for boxblur and unsharp
// (kernels/ffmpeg_arith.hpp), one thread an output; box_passes takes two planes of int32 scratch
// from the stream's workspace.
void box_passes(const BoxPassesOp& op, const Launch& l);
void unsharp_fixed(const UnsharpFixedOp& op, const Launch& l);
// copy.cu, fill.cu
void copy_plane(const Launch& l);
void copy_plane_batch(const BatchLaunch& b);
void fill_neutral(const Launch& l);
void fill_neutral_batch(const BatchLaunch& b);

// byte_finish.cpp: the integer finish of a whole-number kernel with byte taps (-128..127) on 8-bit
// samples, checked against the float finish for every sum it can produce; nullopt where the taps
// are not bytes or there is none. Worked out once when an operation is prepared.
std::optional<FixedFinish> byte_tap_finish(const ConvolveOp& op);

// Largest kernel the tiled and separable paths take (shared memory); larger ones go to naive.
constexpr int kMaxTiledKernel = kMaxKernelSize;

// A state that only says how much memory its buffer holds.
struct BufferState : RowState {
    DeviceBuffer buffer;
    explicit BufferState(DeviceBuffer b) : buffer(std::move(b)) { device_bytes = static_cast<int64_t>(buffer.size()); }
};

}  // namespace vf::cuda
