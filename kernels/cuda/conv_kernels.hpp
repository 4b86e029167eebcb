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

// conv_direct.cu: the three direct variants, slowest first (the benchmark shows what each buys).
void conv_naive(const ConvolveOp& op, const Launch& l);     // taps in global memory, no tiling
void conv_constant(const ConvolveOp& op, const Launch& l);  // taps in constant memory, no tiling
void conv_tiled(const ConvolveOp& op, const Launch& l);     // + shared-memory tile, register blocking;
                                                            //   3x3/5x5/7x7 unrolled at compile time
// conv_separable.cu: row pass + column pass fused in one kernel through shared memory. Box
// filters take running sums; where separable_imma_eligible holds, the row pass runs on the
// tensor cores' integer products (conv_separable_imma.cu); conv_separable_f32 is the FP32 kernel
// alone (the benchmark compares them).
void conv_separable(const ConvolveOp& op, const Launch& l);
void conv_separable_f32(const ConvolveOp& op, const Launch& l);
// conv_box.cu: box filters (every tap equal, their product +-1) by running sums; launches and
// returns true for those, false (launching nothing) for any other kernel.
bool try_conv_box(const ConvolveOp& op, const Launch& l);
// conv_separable_imma.cu: 8-bit planar planes with 16-byte aligned rows, row taps all 0..255 or
// all -128..127, up to 81 wide. try_separable_imma launches and returns true where it applies.
bool separable_imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why = nullptr);
bool try_separable_imma(const ConvolveOp& op, const Launch& l);
// conv_fft.cu: whole-plane FFT through cuFFT, for large dense kernels. Its work buffers are
// per plane size and kernel, so calls sharing them must be on one stream.
void conv_fft(const ConvolveOp& op, const Launch& l);
// conv_tensor.cu: whole-number dense kernels on the tensor cores (half-precision products, FP32
// sums, exact). tensor_eligible says whether it takes this kernel and plane, and why not.
// On 8-bit planes where imma_eligible holds, conv_tensor takes the integer products instead
// (try_conv_imma); conv_tensor_half is the half-precision path alone (the benchmark compares them).
bool tensor_eligible(const ConvolveOp& op, const PlaneView& src, std::string* why = nullptr);
void conv_tensor(const ConvolveOp& op, const Launch& l);
void conv_tensor_half(const ConvolveOp& op, const Launch& l);
// conv_imma.cu: whole-number kernels with byte taps (-128..127) on 8-bit planar planes with
// 16-byte aligned rows, on the tensor cores' integer products (byte samples, int32 sums, exact).
bool imma_eligible(const ConvolveOp& op, const PlaneView& src, const PlaneView& dst, std::string* why = nullptr);
// Launches and returns true where imma_eligible holds; false, launching nothing, otherwise.
bool try_conv_imma(const ConvolveOp& op, const Launch& l);
// conv_direct.cu: the integer finish of a kernel with byte taps on 8-bit samples, solved once
// per kernel and checked against the float finish for every sum it can produce; nullptr where
// the taps are not bytes or there is none.
const FixedFinish* fixed_finish_for(const ConvolveOp& op);
// The key for per-kernel caches whose entries also depend on the divisor and the bias (with
// OpCache, whose own key is the taps).
uint64_t finish_key(const ConvolveOp& op);
// gradient.cu: both 3x3 gradients and the magnitude in one pass.
void gradient(const GradientOp& op, const Launch& l);
// copy_fill.cu
void copy_plane(const Launch& l);
void fill_neutral(const Launch& l);

// Largest kernel the tiled and separable paths take (shared memory); larger ones go to naive.
constexpr int kMaxTiledKernel = kMaxKernelSize;

}  // namespace vf::cuda
