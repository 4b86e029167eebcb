#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/cuda/op_cache.hpp"
#include "kernels/cuda/variants.hpp"

namespace vf::cuda {

// The integer finish of a whole-number kernel with byte taps (-128..127) on 8-bit samples
// (strip16_rows.cuh), solved once per kernel, rdiv and bias and checked against the float finish
// for every sum the kernel can produce; nullptr when the taps are not bytes or there is none. The
// tap check lives here, in the cache, so the per-frame call does not repeat it.
uint64_t finish_key(const ConvolveOp& op) {
    uint32_t rdiv_bits = 0, bias_bits = 0;
    std::memcpy(&rdiv_bits, &op.rdiv, sizeof rdiv_bits);
    std::memcpy(&bias_bits, &op.bias, sizeof bias_bits);
    return pack(static_cast<int>(rdiv_bits), static_cast<int>(bias_bits));
}

namespace {

const FixedFinish* solved_finish(const ConvolveOp& op) {
    static OpCache<std::optional<FixedFinish>> cache;
    const std::optional<FixedFinish>& f =
        cache.get(op, finish_key(op), [&] {
            auto none = std::make_unique<std::optional<FixedFinish>>();
            if (!op.integer) return none;
            long long lo = 0, hi = 0;  // the sums' range over samples 0..255
            for (const double t : op.k) {
                if (t < -128 || t > 127) return none;
                (t < 0 ? lo : hi) += static_cast<long long>(t) * 255;
            }
            return std::make_unique<std::optional<FixedFinish>>(solve_fixed_finish(op.rdiv, op.bias, 255, lo, hi));
        });
    return f ? &*f : nullptr;
}

}  // namespace

const FixedFinish* fixed_finish_for(const ConvolveOp& op) {
    // The per-frame path asks twice a launch for the small kernels (the dispatch table's check,
    // then the launch): each thread keeps its last answer for kernels up to 15x15, found again
    // without the cache's lock by comparing the taps, divisor and bias themselves.
    if (op.kw * op.kh > 15 * 15) return solved_finish(op);
    struct Last {
        std::vector<double> k;
        int kw = 0, kh = 0;
        uint64_t finish = 0;
        const FixedFinish* result = nullptr;
    };
    thread_local Last last;
    const uint64_t finish = finish_key(op);
    if (last.kw == op.kw && last.kh == op.kh && last.finish == finish && last.k == op.k) return last.result;
    last.result = solved_finish(op);
    last.k = op.k;
    last.kw = op.kw;
    last.kh = op.kh;
    last.finish = finish;
    return last.result;
}

}  // namespace vf::cuda
