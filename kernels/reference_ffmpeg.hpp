// The plain references of FFmpeg's own arithmetic (OpKind::BoxPasses, OpKind::UnsharpFixed): one
// output at a time, every window summed from scratch through the border rule. The oracle the
// fast CPU path and the CUDA rows are tested against, as kernels/reference.hpp is for the others.
#pragma once

#include "common/plane.hpp"
#include "kernels/plan.hpp"

namespace vf {

// Rows y_begin .. y_end - 1 of the output (the whole source is read).
void reference_box_passes(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y_begin, int y_end);
void reference_unsharp_fixed(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y_begin, int y_end);

}  // namespace vf
