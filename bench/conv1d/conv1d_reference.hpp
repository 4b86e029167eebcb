// Long 1D convolution (cross-correlation, "valid", as PyTorch's conv1d): y[n] = sum over
// t < taps of x[n + t] * f[t], for n in [0, count); x holds count + taps - 1 samples.
// The reference is here; the GPU paths (direct and FFT) are in bench/conv1d/conv1d.cu. Not part of
// the video product: the GPU benchmark measures them against the 1D anchors (cuDNN conv1d).
#pragma once

namespace vf {

// Double accumulation, one output at a time. Tests only.
void conv1d_reference(const float* x, const float* f, int taps, float* y, int count);

}  // namespace vf
