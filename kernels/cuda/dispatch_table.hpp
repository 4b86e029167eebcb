// Which CUDA kernel runs for a plane operation, and why: the dispatch table (dispatch_table.cpp),
// one row per variant, read from top to bottom. `auto` runs the first row that takes the
// operation and that its policy prefers; dense kernels from 7x7 on are timed once among the
// families that take them. `--kernel NAME` forces one row; `--kernel FAMILY` (tiled, separable,
// tensor, fft, naive, constant) the row of that family auto would pick.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/variants.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {

enum class Family { Copy, Fill, Gradient, Box, Separable, Direct, Tensor, Fft, Naive, Constant };

struct Variant {
    const char* name;    // what --kernel takes and --stats-json and the benchmark report
    Family family;
    const char* takes_text;  // what it can compute, in words
    const char* auto_text;   // when `auto` runs it and why (the benchmark row that justifies it)
    bool (*takes)(const PlaneOp&, const Launch&);      // can it compute this operation on these planes
    bool (*preferred)(const PlaneOp&, const Launch&);  // auto's policy on top of takes (nullptr: always)
    void (*launch)(const PlaneOp&, const Launch&);
};

// The table, top to bottom.
const std::vector<Variant>& dispatch_table();
// The row `auto` runs for op on these planes. Dense kernels from 7x7 on: the first call for a
// kernel, plane size and peak times the candidate families into l.dst (they compute the same
// function, and the real launch follows) and keeps the fastest.
const Variant& choose_variant(const PlaneOp& op, const Launch& l);
// The row of `family` that auto would pick for op on these planes (else the first that takes it);
// a usage error saying why when none does.
const Variant& first_of_family(Family family, const PlaneOp& op, const Launch& l);
// A row's launcher of a whole batch (one launch per kMaxBatch pairs of planes), or nullptr where
// the row has none: a batch then runs as one launch a pair.
using BatchLauncher = void (*)(const PlaneOp&, const BatchLaunch&);
BatchLauncher batch_launcher(const Variant& v);
// The row a batch runs: auto's row for its first pair where that row launches batches and takes
// every pair; else the first row, top to bottom, that launches batches and takes every pair
// (every row computes the same output, so only the number of launches differs); else nullptr,
// and the batch runs auto's row pair by pair.
const Variant* choose_batch_variant(const PlaneOp& op, const BatchLaunch& b);
// The table as Markdown (vfilter --list-kernels, docs/kernels.md).
std::string describe_dispatch_table();

}  // namespace vf::cuda
