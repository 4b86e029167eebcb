// What the 2D and 1D FFT paths share: cuFFT error checks, fast transform sizes, and the
// spectrum product that turns a convolution into a cross-correlation.
#pragma once

#include <cufft.h>

#include <string>

#include "common/error.hpp"

namespace vf::cuda {

inline void cufft_check(cufftResult r, const char* what) {
    if (r != CUFFT_SUCCESS)
        throw Error(ErrorCategory::Device, std::string(what) + " failed (cuFFT error " + std::to_string(r) + ")");
}

// Smallest n' >= n whose only prime factors are 2, 3, 5 and 7 (cuFFT's fast sizes).
inline int fft_size(int n) {
    for (int m = n;; ++m) {
        int r = m;
        for (int p : {2, 3, 5, 7})
            while (r % p == 0) r /= p;
        if (r == 1) return m;
    }
}

namespace {
// a = a * conj(k) * scale: correlation with the kernel whose spectrum is k, normalised.
__global__ void multiply_conj_kernel(cufftComplex* a, const cufftComplex* k, size_t n, float scale) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const cufftComplex x = a[i], y = k[i];
    a[i] = make_cuFloatComplex((x.x * y.x + x.y * y.y) * scale, (x.y * y.x - x.x * y.y) * scale);
}
}  // namespace

}  // namespace vf::cuda
