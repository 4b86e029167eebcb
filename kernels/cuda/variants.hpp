// Launchers for the CUDA convolution kernels. Every launcher takes an explicit stream, checks
// the launch, and never synchronises. Planes are PlaneViews over device memory.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/fixed_finish.hpp"
#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf::cuda {

struct Launch {
    PlaneView src, dst;  // device memory, equal sizes
    Border border = Border::Mirror;
    cudaStream_t stream = nullptr;
};

// Several pairs of planes filtered by one operation: every plane of one size and layout (frames of
// several streams sharing a filter plan and a geometry). Rows that can launch a batch
// (dispatch_table.cpp, batch_launcher) do it in one launch per 16 pairs (kMaxBatch).
struct BatchLaunch {
    const PlaneView* src;
    const PlaneView* dst;
    int count;
    Border border = Border::Mirror;
    cudaStream_t stream = nullptr;
    Launch at(int i) const { return Launch{src[i], dst[i], border, stream}; }
};

// The variants, one file each (variants/<row>.cu, named after the dispatch table's row): each
// launcher takes an explicit stream, checks the launch and never synchronises; a *_takes function
// says whether the variant can compute this operation on these planes at all. Which one runs, and
// why, is decided in one place: dispatch_table.cpp. Helpers several variants share are in device/.

// Direct sums.
void conv_naive(const ConvolveOp& op, const Launch& l);     // naive.cu: taps in global memory, no tiling
void conv_constant(const ConvolveOp& op, const Launch& l);  // constant.cu: taps in constant memory, no tiling
void tile(const ConvolveOp& op, const Launch& l);           // tile.cu: shared-memory tile, register blocking (whole-number taps)
void tile_f64(const ConvolveOp& op, const Launch& l);       // tile_f64.cu: the same with double sums (taps not whole numbers)
bool small_tile_takes(const ConvolveOp& op, const Launch& l);  // small_tile.cu: 3x3, 5x5, 7x7 with whole-number taps,
void small_tile(const ConvolveOp& op, const Launch& l);        // unrolled at compile time, 4 x 2 outputs a thread
bool small_tile_f64_takes(const ConvolveOp& op, const Launch& l);  // small_tile_f64.cu: 3x3, 5x5, 7x7, taps not whole numbers
void small_tile_f64(const ConvolveOp& op, const Launch& l);
bool strip_f32_takes(const ConvolveOp& op, const Launch& l);  // strip_f32.cu: 3x3, whole numbers, planar rows 4-byte aligned,
void strip_f32(const ConvolveOp& op, const Launch& l);        // no shared memory, 2 x 8 outputs a thread
bool strip_dp4a_takes(const ConvolveOp& op, const Launch& l);  // strip_dp4a.cu: 3x3 and 5x5 byte taps on 8-bit planes,
void strip_dp4a(const ConvolveOp& op, const Launch& l);        // strip-f32's shape with DP4A sums
bool strip16_dp4a_takes(const ConvolveOp& op, const Launch& l);  // strip16_dp4a.cu: 3x3 to 15x15, byte taps, 8-bit, rows
void strip16_dp4a(const ConvolveOp& op, const Launch& l);        // 16-byte aligned, an integer finish: 16 outputs a thread
void strip16_dp4a_batch(const ConvolveOp& op, const BatchLaunch& b);
// separable_f32.cu: row pass + column pass fused in one kernel through shared memory, FP32.
void conv_separable_f32(const ConvolveOp& op, const Launch& l);
// box_walk.cu, box_staged.cu: box filters (every tap equal, their product +-1) by running sums;
// box_staged stages the tile by cp.async (8-bit planar planes with 16-byte aligned rows),
// box_walk reads the plane.
bool is_box(const ConvolveOp& op);
bool box_staged_takes(const ConvolveOp& op, const Launch& l);
void box_staged(const ConvolveOp& op, const Launch& l);
void box_walk(const ConvolveOp& op, const Launch& l);
// separable_imma.cu: the row pass on the tensor cores' integer products: 8-bit planar planes
// with 16-byte aligned rows, row taps all 0..255 or all -128..127, up to 81 wide.
// try_separable_imma launches and returns true where it applies.
bool separable_imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why = nullptr);
bool try_separable_imma(const ConvolveOp& op, const Launch& l);
// fft.cu: whole-plane FFT through cuFFT, for large dense kernels. Its work buffers are per plane
// size and kernel, so calls sharing them must be on one stream.
void conv_fft(const ConvolveOp& op, const Launch& l);
// tensor_half.cu: whole-number dense kernels on the tensor cores (half-precision products, FP32
// sums, exact). tensor_eligible says whether it takes this kernel and plane, and why not;
// conv_tensor_half throws a usage error (with that reason) where it does not.
bool tensor_eligible(const ConvolveOp& op, const PlaneView& src, std::string* why = nullptr);
void conv_tensor_half(const ConvolveOp& op, const Launch& l);
// imma.cu: whole-number kernels with byte taps (-128..127) on 8-bit planar planes with 16-byte
// aligned rows, on the tensor cores' integer products (byte samples, int32 sums, exact).
bool imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why = nullptr);
// Launches and returns true where imma_eligible holds; false, launching nothing, otherwise.
bool try_conv_imma(const ConvolveOp& op, const Launch& l);
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
// copy.cu, fill.cu
void copy_plane(const Launch& l);
void copy_plane_batch(const BatchLaunch& b);
void fill_neutral(const Launch& l);
void fill_neutral_batch(const BatchLaunch& b);

// fixed_finish_cache.cpp: the integer finish of a kernel with byte taps on 8-bit samples,
// solved once per kernel and checked against the float finish for every sum it can produce;
// nullptr where the taps are not bytes or there is none (strip16-dp4a and imma use it).
const FixedFinish* fixed_finish_for(const ConvolveOp& op);
// The key for per-kernel caches whose entries also depend on the divisor and the bias (with
// OpCache, whose own key is the taps).
uint64_t finish_key(const ConvolveOp& op);

// Largest kernel the tiled and separable paths take (shared memory); larger ones go to naive.
constexpr int kMaxTiledKernel = kMaxKernelSize;

}  // namespace vf::cuda
