// Baseline x86-64 (or any other architecture) build of the CPU band kernels.
#define VF_CPU_NS cpu_generic
#include "kernels/cpu_bands_impl.hpp"

namespace vf {

#if !defined(VF_HAVE_AVX2_BANDS)
namespace cpu_avx2 {
void run_band(const PlaneOp& op, const PlaneView& s, const PlaneView& d, int y0, int y1, bool sep, BandScratch& m) {
    cpu_generic::run_band(op, s, d, y0, y1, sep, m);
}
}  // namespace cpu_avx2
#endif

BandFn band_function(CpuIsa isa) {
#if defined(VF_HAVE_AVX2_BANDS)
    if (isa == CpuIsa::Avx2 || (isa == CpuIsa::Auto && __builtin_cpu_supports("avx2"))) return cpu_avx2::run_band;
#else
    (void)isa;
#endif
    return cpu_generic::run_band;
}

const char* isa_name(CpuIsa isa) {
    return band_function(isa) == cpu_generic::run_band ? "generic" : "avx2";
}

}  // namespace vf
