// The row-band kernels of the CPU backend. They are compiled twice, for baseline x86-64 and
// for AVX2 (kernels/cpu_bands_*.cpp), and CpuBackend picks one at run time. No fused
// multiply-add and the same summation order in both, so both give the reference's exact output.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/plan.hpp"
#include "common/plane.hpp"

namespace vf {

// Per-worker memory, grown on first use and reused for every later band and frame.
struct BandScratch {
    std::vector<int32_t> i32;
    std::vector<int16_t> i16;
    std::vector<int64_t> i64;
    std::vector<uint32_t> u32;  // FFmpeg's unsharp sums (kernels/cpu_ffmpeg_blurs.hpp)
    std::vector<double> f64;
    std::vector<float> f32;
    std::vector<uint16_t> zeros;  // a row of zeros: the rows outside a zero border, read in place
};

enum class CpuIsa { Auto, Generic, Avx2 };

using BandFn = void (*)(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, int y0, int y1,
                        bool allow_separable, BandScratch& scratch);

namespace cpu_generic {
void run_band(const PlaneOp&, const PlaneView&, const PlaneView&, int, int, bool, BandScratch&);
}
namespace cpu_avx2 {
void run_band(const PlaneOp&, const PlaneView&, const PlaneView&, int, int, bool, BandScratch&);
}

// The band function for an instruction set; Auto picks the best this CPU runs.
BandFn band_function(CpuIsa isa);
const char* isa_name(CpuIsa isa);

}  // namespace vf
