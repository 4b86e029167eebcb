// The CUDA backend: applies a PlaneOp to a channel in device memory on a given stream, through the
// dispatch table (kernels/cuda/dispatch_table.cpp), which says which variant runs and why. `Auto`
// runs the table's choice; a family or a row's name forces it (tests and the benchmark use them to
// show what each step buys). Only built when CUDA is found at configure time.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/plane.hpp"
#include "kernels/gpu_kernel.hpp"
#include "kernels/plan.hpp"

namespace vf {

// True when a CUDA device can be used; otherwise `reason` says why (for one log line).
bool cuda_device_available(std::string* reason);
// Makes GPU `index` current for this thread; false with the reason when there is no such GPU.
bool select_gpu(int index, std::string* why);
// How many GPUs CUDA sees (0 when none answers).
int gpu_count();
// GPU memory in use and in total on the current device (all processes), or false.
bool gpu_memory_info(size_t* used_bytes, size_t* total_bytes);

class CudaBackend {
public:
    // The name of the row `auto` runs for op on these planes (the first call for a dense kernel
    // from 7x7 times the candidates into dst).
    const char* choose(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream) const;
    // src and dst are device memory of equal size. Asynchronous on `stream`. Returns the name of
    // the dispatch table's row that ran. A forced row applies to operations of its own kind (a
    // gradient row to gradients, the others to convolutions); other operations run `auto`.
    const char* apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
                      const KernelChoice& kernel) const;
    const char* apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, cudaStream_t stream,
                      GpuKernel family = GpuKernel::Auto) const {
        return apply(op, src, dst, stream, KernelChoice{family, -1});
    }
    // The same operation on `count` pairs of planes, all of one size (frames of several streams that
    // share a filter plan and a geometry), as one launch per 16 pairs where a row of the dispatch
    // table launches batches (kernels/cuda/dispatch_table.hpp, choose_batch_variant); otherwise,
    // and for a forced kernel, one launch a pair. The output equals `apply` on each pair.
    const char* apply_batch(const PlaneOp& op, const PlaneView* src, const PlaneView* dst, int count, cudaStream_t stream,
                            const KernelChoice& kernel = {}) const;
};

}  // namespace vf
