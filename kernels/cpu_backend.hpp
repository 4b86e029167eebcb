// The fast CPU path: row bands over a thread pool, a ring of border-padded rows per band so
// the inner loops run branch-free over contiguous memory, exact integer accumulation where
// the coefficients allow it (int32 when the worst case fits, else int64), and a row pass +
// column pass for rank-1 kernels. Output equals reference_apply() exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/thread_pool.hpp"
#include "kernels/cpu_bands.hpp"
#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf {

class CpuBackend {
public:
    // threads 0: one per core. isa: Auto picks AVX2 where the CPU has it (tests force each).
    explicit CpuBackend(int threads = 0, CpuIsa isa = CpuIsa::Auto);
    ~CpuBackend();

    int threads() const { return pool_.size(); }
    const char* isa() const { return isa_; }

    // Applies op to one channel. src and dst have equal sizes and must not overlap.
    // allow_separable=false forces the direct path (for tests and benchmarks).
    void apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, bool allow_separable = true);

private:
    ThreadPool pool_;
    BandFn band_;
    const char* isa_;
    std::vector<std::unique_ptr<BandScratch>> scratch_;  // one per worker, reused across frames
    std::vector<int32_t> box_between_;  // FFmpeg's boxblur: the rows' passes before the columns'
};

}  // namespace vf
