// GPU long 1D convolution; semantics in bench/conv1d/conv1d_reference.hpp. All pointers are
// device memory.
#pragma once

#include <cuda_runtime.h>

#include <memory>

namespace vf::cuda {

// Direct: signal and taps staged through shared memory in chunks, 8 outputs per thread with the
// inner loop unrolled, taps split over blocks when the outputs alone cannot fill the GPU (the
// partial sums are then added in a fixed order, so results are deterministic).
class Conv1dDirect {
public:
    Conv1dDirect(int taps, int count);
    ~Conv1dDirect();
    void run(const float* x, const float* f, float* y, cudaStream_t stream);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// FFT: one real-to-complex transform of the signal, a product with the conjugate spectrum of
// the taps (computed once, in the constructor), one inverse transform.
class Conv1dFft {
public:
    Conv1dFft(const float* f, int taps, int count);
    ~Conv1dFft();
    void run(const float* x, float* y, cudaStream_t stream);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vf::cuda
