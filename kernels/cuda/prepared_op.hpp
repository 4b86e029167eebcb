// A plane operation compiled for one device and one layout of its planes: its dispatch-table row
// chosen, and everything that row needs on that device made and owned (taps in global or constant
// memory, the integer finish, tables, the FFT's spectrum, the raised shared-memory limit). Frames
// then only launch. Freed when the last owner lets go (a prepared chain, a benchmark, a test):
// its memory and constant-memory range go back with it.
// Models: OpenCV's cuda::createLinearFilter (a Ptr<Filter> that owns its kernel), FFmpeg's
// param_init (functions chosen at configure time), CV-CUDA's operators (own their workspace).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "common/plane.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/workspace.hpp"
#include "kernels/gpu_kernel.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {

struct Variant;

// What the dispatch table reads of a plane: its sizes, how its samples lie, and how its first
// sample is aligned. No address: frames of one stream share a shape.
struct PlaneShape {
    int width = 0, height = 0;
    std::ptrdiff_t pitch = 0;
    int step = 1;
    int bytes_per_sample = 1;
    int depth = 8;
    int shift = 0;
    int align = 16;  // the largest power of two, up to 16, dividing the first sample's address

    static PlaneShape of(const PlaneView& v);
    bool operator==(const PlaneShape& o) const;
    bool operator!=(const PlaneShape& o) const { return !(*this == o); }
    // Whether v may take the place of planes of this shape: the same layout, at least as aligned.
    bool fits(const PlaneView& v) const;
    // A view of this layout at `base` (256-byte aligned) moved to this shape's alignment.
    PlaneView over(uint8_t* base) const;
    // Bytes from `base` to one past the last sample of over(base).
    size_t extent() const;
    uint64_t hash() const;
};

class PreparedOp {
public:
    // Chooses op's row for `choice` on planes of these shapes (timing the exact candidates of a
    // dense kernel from 7x7 on scratch planes) and makes what the row needs. Throws a usage error
    // when a forced row or family cannot take it.
    PreparedOp(std::shared_ptr<DeviceContext> ctx, const PlaneOp& op, const PlaneShape& src, const PlaneShape& dst,
               const KernelChoice& choice);
    ~PreparedOp();
    PreparedOp(const PreparedOp&) = delete;
    PreparedOp& operator=(const PreparedOp&) = delete;

    const char* row() const;  // the dispatch table's row that runs
    const PlaneOp& op() const { return op_; }
    int64_t device_bytes() const;
    DeviceContext& context() const { return *ctx_; }

    // Asynchronous on `stream`, with the device current. src and dst must fit the shapes the
    // operation was prepared for (an internal error otherwise).
    void launch(const PlaneView& src, const PlaneView& dst, cudaStream_t stream, Workspace& workspace) const;
    // The same on `count` pairs (frames of several streams): one launch per 16 pairs where the row
    // launches batches, else one a pair. The output equals launch() on each pair.
    void launch_batch(const PlaneView* src, const PlaneView* dst, int count, cudaStream_t stream, Workspace& workspace) const;

private:
    void check_fits(const PlaneView& src, const PlaneView& dst) const;

    std::shared_ptr<DeviceContext> ctx_;
    PlaneOp op_;
    PlaneShape src_, dst_;
    const Variant* row_ = nullptr;
    RowStatePtr state_;
};

}  // namespace vf::cuda
