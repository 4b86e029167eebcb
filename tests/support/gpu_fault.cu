#include "support/gpu_fault.hpp"

namespace vf::test {
namespace {

__global__ void trap_kernel() { __trap(); }

}  // namespace

cudaError_t break_gpu_context() {
    cudaStream_t s = nullptr;
    if (const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess) return e;
    trap_kernel<<<1, 1, 0, s>>>();
    return cudaStreamSynchronize(s);
}

}  // namespace vf::test
