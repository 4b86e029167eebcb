#include "kernels/cpu_backend.hpp"

#include <algorithm>

#include "kernels/cpu_ffmpeg_blurs.hpp"

namespace vf {

CpuBackend::CpuBackend(int threads, CpuIsa isa) : pool_(threads), band_(band_function(isa)), isa_(isa_name(isa)) {
    for (int i = 0; i < pool_.size(); ++i) scratch_.push_back(std::make_unique<BandScratch>());
}

CpuBackend::~CpuBackend() = default;

void CpuBackend::apply(const PlaneOp& op, const PlaneView& src, const PlaneView& dst, bool allow_separable) {
    const int h = src.height;
    if (h <= 0 || src.width <= 0) return;
    if (op.kind == OpKind::BoxPasses) return box_passes_cpu(op, src, dst, pool_, box_between_);
    // Bands of at least 16 rows, about 4 per worker so uneven work still balances. Tall kernels
    // recompute kh - 1 halo rows per band, so they get 2 bands per worker instead.
    const int per_worker = op.kind == OpKind::Convolve && op.conv.kh >= 9 ? 2 : 4;
    const int bands = std::max(1, std::min(h / 16, pool_.size() * per_worker));
    pool_.parallel_for(bands, [&](int b, int worker) {
        const int y0 = static_cast<int>(static_cast<long long>(h) * b / bands);
        const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / bands);
        band_(op, src, dst, y0, y1, allow_separable, *scratch_[worker]);
    });
}

}  // namespace vf
