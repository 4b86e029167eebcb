// strip16-dp4a: whole-number kernels from 3x3 to 15x15 with byte taps on 8-bit planes with 16-byte
// aligned rows: 16 outputs a thread, DP4A sums and the integer finish (strip16_rows.cuh).
#include "kernels/cuda/variants.hpp"

#include <type_traits>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/device/byte_plane.cuh"
#include "kernels/cuda/device/strip16_rows.cuh"

namespace vf::cuda {
namespace {

// Calls fn with the kernel size as a compile-time constant (3, 5, ..., 15).
template <typename Fn>
void with_size(int kw, Fn&& fn) {
    switch (kw) {
    case 3: return fn(std::integral_constant<int, 3>{});
    case 5: return fn(std::integral_constant<int, 5>{});
    case 7: return fn(std::integral_constant<int, 7>{});
    case 9: return fn(std::integral_constant<int, 9>{});
    case 11: return fn(std::integral_constant<int, 11>{});
    case 13: return fn(std::integral_constant<int, 13>{});
    default: return fn(std::integral_constant<int, 15>{});
    }
}

// The taps as strip16 reads them: row j, column i.
template <int K>
auto taps_of(const ConvolveOp& op) {
    return [&op](int j, int i) { return static_cast<int>(op.k[static_cast<size_t>(j) * K + i]); };
}

// The integer finish, solved when the operation was prepared.
struct FinishState : RowState {
    FixedFinish finish;
};

}  // namespace

bool strip16_dp4a_takes(const ConvolveOp& op, const Launch& l) {
    return op.kw == op.kh && op.kw % 2 == 1 && op.kw >= 3 && op.kw <= 15 && l.src.bytes_per_sample == 1 && l.dst.peak() == 255 &&
           byte_rows_16(l.src) && byte_rows_16(l.dst) && l.byte_finish != nullptr;
}

RowStatePtr strip16_dp4a_prepare(const ConvolveOp&, const Launch& l) {
    auto s = std::make_unique<FinishState>();
    s->finish = *l.byte_finish;
    return s;
}

void strip16_dp4a(const ConvolveOp& op, const RowState* s, const Launch& l) {
    const FixedFinish& finish = state_as<FinishState>(s).finish;
    with_size(op.kw, [&](auto size) {
        constexpr int K = decltype(size)::value;
        strip16::launch<K>(l.src, l.dst, taps_of<K>(op), finish, border_mode(l.border), l.stream);
    });
    VF_CUDA_CHECK_LAUNCH("strip16_kernel (convolution)");
}

void strip16_dp4a_batch(const ConvolveOp& op, const RowState* s, const BatchLaunch& b) {
    const FixedFinish& finish = state_as<FinishState>(s).finish;
    with_size(op.kw, [&](auto size) {
        constexpr int K = decltype(size)::value;
        strip16::launch_batch<K>(b.src, b.dst, b.count, taps_of<K>(op), finish, border_mode(b.border), b.stream);
    });
    VF_CUDA_CHECK_LAUNCH("strip16_batch_kernel (convolution)");
}

}  // namespace vf::cuda
