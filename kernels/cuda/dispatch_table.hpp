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
// The table as Markdown (vfilter --list-kernels, docs/kernels.md).
std::string describe_dispatch_table();

}  // namespace vf::cuda
