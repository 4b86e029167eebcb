// Breaks this process's CUDA context for real, as a failing GPU does: a kernel that traps leaves
// the context with a sticky error, so every later CUDA call of every thread fails. For the
// lost-device test only; the process cannot use the GPU again afterwards.
#pragma once

#include <cuda_runtime.h>

namespace vf::test {

// Launches the trapping kernel on a stream of its own and waits for it; returns the error the
// wait reported (cudaErrorLaunchFailure on the H100/H200).
cudaError_t break_gpu_context();

}  // namespace vf::test
