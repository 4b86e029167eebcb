// Which CUDA kernel runs for a plane operation, and why: the dispatch table (dispatch_table.cpp),
// one row per variant, read from top to bottom. `auto` runs the first row that takes the
// operation and that its policy prefers; for dense kernels from 7x7 the direct and the tensor row
// that take it, which give the same bytes, are timed once when the operation is prepared. A row
// that is not exact (fft) is never timed against exact ones, so the same input and filter give the
// same bytes on every run and every GPU. `--kernel NAME` forces one row; `--kernel FAMILY` (tiled,
// separable, tensor, fft, naive, constant) the row of that family auto would pick.
//
// The rows are chosen when an operation is prepared (prepared_op.hpp), never per frame.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/gpu_kernel.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {

struct Variant {
    const char* name;         // what --kernel takes and --stats-json and the benchmark report
    KernelFamily family;
    const char* takes_text;   // what it can compute, in words
    const char* auto_text;    // when `auto` runs it and why (the benchmark row that justifies it)
    bool (*takes)(const PlaneOp&, const Launch&);      // can it compute this operation on these planes
    bool (*preferred)(const PlaneOp&, const Launch&);  // auto's policy on top of takes (nullptr: always)
    // What it makes on a device for one operation and plane layout (nullptr: nothing).
    RowStatePtr (*prepare)(const PlaneOp&, const Launch&, DeviceContext&);
    void (*launch)(const PlaneOp&, const RowState*, const Launch&);
    // One launch per kMaxBatch pairs of planes (nullptr: a batch runs as one launch a pair).
    void (*launch_batch)(const PlaneOp&, const RowState*, const BatchLaunch&);
};

// The table, top to bottom.
const std::vector<Variant>& dispatch_table();

// Given rows that compute the same bytes, the index of the fastest (the preparing code times them).
using FastestOf = std::function<size_t(const std::vector<const Variant*>& rows)>;

// The row `auto` runs for op on planes of these layouts; `fastest` decides among the exact rows
// that compete for dense kernels from 7x7 (without it, the direct row).
const Variant& choose_variant(const PlaneOp& op, const Launch& l, const FastestOf& fastest);
// The row of `family` that auto would pick for op on these planes (else the first that takes it);
// a usage error saying why when none does.
const Variant& first_of_family(KernelFamily family, const PlaneOp& op, const Launch& l);
// The row that runs op for `choice`: a forced row (for operations of its kind; a usage error where
// it does not take them), a forced family (for convolutions), or auto's.
const Variant& choose_row(const PlaneOp& op, const Launch& l, const KernelChoice& choice, const FastestOf& fastest);
// Whether row v takes op on planes laid out as src and dst (worked out as when an operation is
// prepared; the planes' data is never read).
bool row_takes(const Variant& v, const PlaneOp& op, const PlaneView& src, const PlaneView& dst);
// The table as Markdown (vfilter --list-kernels, docs/kernels.md).
std::string describe_dispatch_table();

}  // namespace vf::cuda
