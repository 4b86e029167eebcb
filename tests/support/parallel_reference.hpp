// The plain reference (kernels/reference.hpp) on every core: rows shared among threads, each row
// computed exactly as reference_apply computes it. For the GPU tests, whose large kernels on
// large planes would otherwise spend most of the suite's time in one thread.
#pragma once

#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf::test {

void parallel_reference(const PlaneOp& op, const PlaneView& src, const PlaneView& dst);

}  // namespace vf::test
