#include <optional>

#include "kernels/cuda/variants.hpp"

namespace vf::cuda {

std::optional<FixedFinish> byte_tap_finish(const ConvolveOp& op) {
    if (!op.integer) return std::nullopt;
    long long lo = 0, hi = 0;  // the sums' range over samples 0..255
    for (const double t : op.k) {
        if (t < -128 || t > 127) return std::nullopt;
        (t < 0 ? lo : hi) += static_cast<long long>(t) * 255;
    }
    return solve_fixed_finish(op.rdiv, op.bias, 255, lo, hi);
}

}  // namespace vf::cuda
